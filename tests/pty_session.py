"""An interactive session driven as a person drives it: the real program in a pseudo-terminal
(pexpect), against the scripted model over loopback (vcrpy cannot see a subprocess). Shared by the
tests of the interactive mode; `start` is their fixture (import it where it is used)."""

from __future__ import annotations

import json
import os
import re
import time

import pexpect
import pytest

from conftest import REPO
from scripted_model import ScriptedModel

PROMPT_READY = "\x1b[?2004h"  # prompt_toolkit turns bracketed paste on each time it waits for a line
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b[()][AB0]|\x08")
# what points the program at the scripted model, per wire format
PROVIDER_VARIABLES = {
    "openrouter": lambda base: {"OPENROUTER_BASE_URL": base + "/api/v1", "OPENROUTER_API_KEY": "dummy-key"},
    "anthropic": lambda base: {"ANTHROPIC_BASE_URL": base, "ANTHROPIC_API_KEY": "dummy-key", "AGENT_PROVIDER": "anthropic"},
}


class Session:
    """One interactive session in a pty: `send` a line, `expect` what the screen shows (escape
    sequences removed, so styled words read as plain text)."""

    def __init__(self, model: ScriptedModel, workspace, home, *flags: str, provider: str = "openrouter") -> None:
        env = {k: v for k, v in os.environ.items()
               if not k.startswith(("OPENROUTER_", "ANTHROPIC_", "AGENT_", "CLAUDE_")) and k not in ("COLUMNS", "LINES")}
        env.update(HOME=str(home), TERM="xterm", PROMPT_TOOLKIT_NO_CPR="1", **PROVIDER_VARIABLES[provider](model.base))
        self.child = pexpect.spawn(str(REPO / "your_program.sh"), list(flags), cwd=str(workspace), env=env,
                                   encoding="utf-8", timeout=20, dimensions=(40, 200))
        self.raw = ""  # everything the program wrote
        self.read_to = 0  # how far `raw` has been searched for prompts
        self.seen = ""  # all of it, without escape sequences
        self.seen_to = 0  # how far `seen` has been matched

    def _wait(self, found, timeout: float = 20) -> None:
        deadline = time.monotonic() + timeout
        while not found():
            try:
                self.raw += self.child.read_nonblocking(4096, timeout=max(0.05, deadline - time.monotonic()))
            except pexpect.TIMEOUT:
                raise AssertionError(f"not seen in time; the screen ends with: {ANSI.sub('', self.raw)[-600:]!r}") from None
            except pexpect.EOF:
                raise AssertionError(f"the program ended; the screen ends with: {ANSI.sub('', self.raw)[-600:]!r}") from None
            self.seen = ANSI.sub("", self.raw)

    def ready(self) -> None:
        """Wait until the program waits for the next line."""
        def found() -> bool:
            at = self.raw.find(PROMPT_READY, self.read_to)
            if at >= 0:
                self.read_to = at + len(PROMPT_READY)
            return at >= 0
        self._wait(found)

    def expect(self, pattern: str) -> None:
        """Wait until text matching `pattern` shows after what was matched before."""
        def found() -> bool:
            match = re.compile(pattern).search(self.seen, self.seen_to)
            if match:
                self.seen_to = match.end()
            return match is not None
        self._wait(found)

    def wait_until(self, happened, timeout: float = 20) -> None:
        """Read the screen until `happened()` (say, the scripted model has the request a Ctrl-C
        is meant to cancel), so a key is pressed at the moment a test means, on any machine."""
        self._wait(happened, timeout)

    def send(self, line: str) -> None:
        self.child.send(line + "\r")

    def end(self) -> int:
        self.child.expect(pexpect.EOF)
        self.raw += self.child.before or ""
        self.seen = ANSI.sub("", self.raw)
        self.child.close()
        return self.child.exitstatus


@pytest.fixture
def start(model, tmp_path):
    """start(*flags, bypass=True, provider="openrouter", settings=None): a session in a fresh
    workspace and home, talking to the scripted model over the provider's wire format; `settings`
    adds to the user's settings file (hooks, say)."""
    workspace, home = tmp_path / "workspace", tmp_path / "home"
    workspace.mkdir()
    (home / ".claude").mkdir(parents=True)

    def begin(*flags: str, bypass: bool = True, provider: str = "openrouter", settings: dict | None = None) -> Session:
        mode = "bypassPermissions" if bypass else "default"
        (home / ".claude" / "settings.json").write_text(json.dumps({"permissions": {"defaultMode": mode}, **(settings or {})}))
        session = Session(model, workspace, home, *flags, provider=provider)
        session.workspace, session.home = workspace, home
        return session

    return begin
