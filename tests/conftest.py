"""The test harness: run the real agent in-process against a cassette.

`make test` replays every cassette (`--record-mode=none`, the default, with the network blocked).
`make record` (`--record-mode=rewrite`) records them again: against the real provider when its key
is in the environment, otherwise against the scripted model in `scripted_model.py`, whose replies
each test scripts with `agent.script(...)`.
"""

from __future__ import annotations

import io
import json
import logging
import os
import re
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from agent import cli
from agent.record.cassette_file import read as read_cassette
from scripted_model import ScriptedModel

REPO = Path(__file__).resolve().parent.parent
CASSETTES = REPO / "cassettes"
PROVIDERS = ["openrouter", "anthropic"]
KEYS = {"openrouter": "OPENROUTER_API_KEY", "anthropic": "ANTHROPIC_API_KEY"}
BASES = {"openrouter": "OPENROUTER_BASE_URL", "anthropic": "ANTHROPIC_BASE_URL"}
# Variables of ours (or Claude Code's) that change what a run sends, besides the prefixes above.
OTHER_VARIABLES = {"API_TIMEOUT_MS", "MAX_THINKING_TOKENS", "XDG_CACHE_HOME", "SLASH_COMMAND_TOOL_CHAR_BUDGET"}
# What a replay that drifted from its cassette says (agent.record.replaying).
DRIFTED = ("differs from the cassette", "requests the cassette", "more requests than the cassette",
           "a tool call the cassette")
# Real keys, read once before any test clears the environment.
REAL_KEYS = {name: os.environ.get(var) for name, var in KEYS.items()}


@dataclass
class Run:
    """What a user and the model saw of one run."""

    exit_code: int
    stdout: str
    stderr: str
    cassette: Path

    @property
    def bodies(self) -> list[str]:
        """The raw JSON text of every request the run sent, in order (workspace as {{workspace}})."""
        return [json.dumps(i.request, ensure_ascii=False) for i in read_cassette(str(self.cassette)).interactions]

    @property
    def payloads(self) -> list[dict]:
        return [json.loads(body) for body in self.bodies]

    def some_request(self, contains: list[str], lacks: list[str] = ()) -> bool:
        """The tester's SomeRequestAssertion: one request body holds all of `contains` and none of
        `lacks` (case-insensitive substrings of the JSON text)."""
        for body in self.bodies:
            low = body.lower()
            if all(c.lower() in low for c in contains) and not any(x.lower() in low for x in lacks):
                return True
        return False


class Harness:
    """One test's agent: a workspace, a home folder, a scripted model when recording, and `run`."""

    def __init__(self, request: pytest.FixtureRequest, provider: str, tmp_path: Path, monkeypatch, capsys):
        self.provider = provider
        self.workspace = tmp_path / "workspace"
        self.home = tmp_path / "home"
        self.workspace.mkdir()
        self.home.mkdir()
        self._capsys = capsys
        self._monkeypatch = monkeypatch
        self._runs = 0
        name = re.sub(r"[\[\]]", "-", request.node.name).strip("-").replace("--", "-")
        self._cassette_stem = CASSETTES / request.node.module.__name__.removeprefix("test_") / name
        mode = request.config.getoption("--record-mode") or "none"
        self.recording = mode in ("all", "rewrite", "new_episodes") or (
            mode == "once" and not self.cassette_path(1).exists()
        )
        self.model: ScriptedModel | None = None
        for variable in list(os.environ):
            if variable.startswith(("OPENROUTER_", "ANTHROPIC_", "AGENT_", "CLAUDE_")) or variable in OTHER_VARIABLES:
                monkeypatch.delenv(variable)
        monkeypatch.setenv("HOME", str(self.home))
        # as the CodeCrafters tester does; permission tests write their own settings
        self.settings({"permissions": {"defaultMode": "bypassPermissions"}})
        monkeypatch.chdir(self.workspace)
        # the key as a user's shell holds it: each run takes it out of the process's environment
        self.key = REAL_KEYS[provider] if self.recording and REAL_KEYS[provider] else f"dummy-{provider}-key"
        monkeypatch.setenv(KEYS[provider], self.key)
        if not (self.recording and REAL_KEYS[provider]):
            if self.recording:
                self.model = ScriptedModel()
                suffix = "/api/v1/" if provider == "openrouter" else ""  # the tester's trailing slash
                monkeypatch.setenv(BASES[provider], self.model.base + suffix)
            else:
                monkeypatch.setenv(BASES[provider], "http://localhost:10000/api/v1/" if provider == "openrouter" else "http://localhost:10000")
        monkeypatch.setenv("AGENT_PROVIDER", provider)

    def settings(self, value: dict, where: str = "user") -> Path:
        """Write Claude Code settings: `user` (~/.claude/settings.json), `project` or `local`."""
        folder = {"user": self.home, "project": self.workspace, "local": self.workspace}[where] / ".claude"
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / ("settings.local.json" if where == "local" else "settings.json")
        path.write_text(json.dumps(value, indent=4))
        return path

    def trust(self, folder: Path | None = None) -> Path:
        """Trust the workspace (or `folder`) as Claude Code's trust dialog records it, in
        ~/.claude.json, so the project's own settings and skills may grant permissions."""
        path = self.home / ".claude.json"
        config = json.loads(path.read_text()) if path.exists() else {}
        key = os.path.realpath(folder or self.workspace)
        config.setdefault("projects", {}).setdefault(key, {})["hasTrustDialogAccepted"] = True
        path.write_text(json.dumps(config, indent=2))
        return path

    def cassette_path(self, number: int) -> Path:
        suffix = "" if number == 1 else f"-{number}"
        return self._cassette_stem.with_name(self._cassette_stem.name + suffix + ".yaml")

    def write(self, relative: str, content: str, mode: int | None = None) -> Path:
        """Seed a file in the workspace."""
        path = self.workspace / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(content)
        if mode is not None:
            path.chmod(mode)
        return path

    def skill(self, name: str, description: str, body: str, fork: bool = False, user: bool = False, extra: str = "") -> Path:
        """Seed `.claude/skills/<name>/SKILL.md` exactly as the tester lays it out (in the home folder
        when `user`); `extra` adds frontmatter lines."""
        root = self.home if user else self.workspace
        lines = ["---", f"name: {name}", f"description: {description}"]
        if fork:
            lines.append("context: fork")
        if extra:
            lines.append(extra.rstrip("\n"))
        path = root / ".claude" / "skills" / name / "SKILL.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("\n".join(lines + ["---", "", body]) + "\n")
        return path

    def script(self, *replies) -> None:
        """Queue scripted replies (used only while recording against the scripted model)."""
        if self.model:
            self.model.script(*replies)

    def allow_any_model(self) -> None:
        """Let the scripted model accept models other than the tester's haiku (for model tests)."""
        if self.model:
            self.model.allowed_model_prefix = ""

    def agent_file(self, relative: str, name: str, description: str, body: str, extra: str = "", user: bool = False) -> Path:
        """Seed a subagent definition under .claude/agents/ (in the home folder when `user`)."""
        root = self.home if user else self.workspace
        path = root / ".claude" / "agents" / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        front = [f"name: {name}", f"description: {description}"] + ([extra.rstrip("\n")] if extra else [])
        path.write_text("---\n" + "\n".join(front) + "\n---\n\n" + body + "\n")
        return path

    def route(self, key: str, *replies) -> None:
        if self.model:
            self.model.route(key, *replies)

    def run(self, prompt: str, *flags: str, stdin=None) -> Run:
        """Run the agent in-process on `prompt`, recording or replaying this run's cassette."""
        return self.run_argv(["-p", prompt, *flags], stdin=stdin)

    def run_argv(self, argv: list[str], stdin=None) -> Run:
        """Run the agent in-process with exactly `argv` (plus the cassette flags); `stdin` is what
        is piped in (bytes, or an open file), nothing by default."""
        self._runs += 1
        cassette = self.cassette_path(self._runs)
        mode_flag = "--record" if self.recording else "--replay"
        self._capsys.readouterr()
        piped = io.BytesIO(stdin) if isinstance(stdin, bytes) else stdin if stdin is not None else io.BytesIO(b"")
        # a run takes the key out of the process's environment, as it holds it: the next run of
        # this test gets it again, as a user's next command would (the test's own key, if it set one)
        self.key = os.environ.get(KEYS[self.provider], self.key)
        self._monkeypatch.setenv(KEYS[self.provider], self.key)
        code = cli.main([*argv, mode_flag, str(cassette)], stdin=piped)
        out, err = self._capsys.readouterr()
        sys.stderr.write(err)  # captured again, so pytest shows it when the test fails
        if not self.recording and any(sign in err for sign in DRIFTED):
            # the test's assertions may read the recorded requests (`Run.payloads`): a replay that
            # drifted from them would pass unseen, so it fails the test here
            pytest.fail(f"the replay of {cassette.name} drifted from its cassette (re-record it): {err.strip()[-600:]}")
        return Run(code, out, err, cassette)

    def next_cassette(self) -> tuple[Path, str]:
        """The cassette of this test's next run and how the run uses it ("record" or "replay"), for
        runs the test starts itself (the Agent SDK starting the CLI: tests/sdk_session.py)."""
        self._runs += 1
        return self.cassette_path(self._runs), "record" if self.recording else "replay"

    def drifted(self, cassette: Path, stderr: str) -> None:
        """Fail the test when a replay's `stderr` says it drifted from `cassette` (see run_argv)."""
        if not self.recording and any(sign in stderr for sign in DRIFTED):
            pytest.fail(f"the replay of {cassette.name} drifted from its cassette (re-record it): {stderr.strip()[-600:]}")

    def replay(self, *flags: str, cwd: Path | None = None, number: int = 1, cassette: Path | None = None) -> Run:
        """Replay this test's cassette `number` (or a copy of it, `cassette`) as a user would
        (`--replay CASSETTE *flags`, no prompt), in `cwd` (the workspace by default); never records."""
        cassette = cassette or self.cassette_path(number)
        self._capsys.readouterr()
        with pytest.MonkeyPatch.context() as patch:
            patch.chdir(cwd or self.workspace)
            code = cli.main(["--replay", str(cassette), *flags])
        out, err = self._capsys.readouterr()
        sys.stderr.write(err)
        return Run(code, out, err, cassette)

    def close(self) -> None:
        if self.model:
            self.model.close()


@pytest.fixture
def model():
    """A scripted model server of the test's own (127.0.0.1), closed when the test ends."""
    served = ScriptedModel()
    yield served
    served.close()


@pytest.fixture
def home(tmp_path: Path) -> Path:
    """An empty home folder for unit tests of discovery and settings."""
    path = tmp_path / "home"
    path.mkdir()
    return path


@pytest.fixture
def cwd(tmp_path: Path) -> Path:
    """A workspace folder for unit tests of settings and permissions."""
    path = tmp_path / "work"
    path.mkdir()
    return path


@pytest.fixture
def warnings():
    """Warning lines logged on the "agent" logger (the CLI may have turned its propagation off)."""
    lines: list[str] = []

    class Collect(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            lines.append(record.getMessage())

    handler, logger = Collect(level=logging.WARNING), logging.getLogger("agent")
    logger.addHandler(handler)
    yield lines
    logger.removeHandler(handler)


@pytest.fixture(autouse=True)
def no_retry_sleep(monkeypatch):
    """Retries never really sleep in tests (tests that check waits record them instead)."""
    from agent.model import retry

    monkeypatch.setattr(retry, "sleep", lambda seconds: None)


@pytest.fixture(params=PROVIDERS)
def provider(request) -> str:
    return request.param


@pytest.fixture
def agent(request, provider, tmp_path, monkeypatch, capsys):
    harness = Harness(request, provider, tmp_path, monkeypatch, capsys)
    yield harness
    harness.close()
