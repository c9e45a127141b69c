"""Secrets stay secret: the provider key, however a command or a provider spells it (literal,
JSON-escaped, URL-encoded, hex, base64 and base64url at each alignment, wrapped or not), reaches no
request, cassette, trace, transcript, stdout or stderr, and no command can read it from the agent's
environment (`/proc/$PPID/environ` included). The real program against the scripted model over
loopback, on both wire formats (vcrpy cannot see a subprocess, and a cassette would hide the echo)."""

from __future__ import annotations

import base64
import json
import os
import subprocess
from pathlib import Path
from urllib.parse import quote, quote_plus

import pytest

from conftest import REPO
from scripted_model import ScriptedModel, call, fail, text

# key-shaped at run time only; `/+=&%` make its URL, JSON and base64 forms differ from the literal
KEY = "sk-or-v1-" + "f00dcafe" * 6 + "/+=&%"
VARIABLE = {"openrouter": "OPENROUTER_API_KEY", "anthropic": "ANTHROPIC_API_KEY"}
MARKER = {provider: f"[{name} redacted]" for provider, name in VARIABLE.items()}

# prints the key of .env (a dotfile that holds it) base64-encoded at each alignment, wrapped and
# not, in base64url, URL-encoded, hex; then the agent's own environment, base64-encoded
LEAKING_COMMAND = r"""for p in '' x xy; do
  printf '%s%s' "$p" "$(cat .env)" | base64 -w0; echo
  printf '%s%s' "$p" "$(cat .env)" | base64 | tr '+/' '-_'
done
python3 -c "import urllib.parse as u; k=open('.env').read().strip(); print(u.quote(k, safe='')); print(u.quote_plus(k)); print(k.encode().hex())"
echo "environ: $(base64 -w0 /proc/$PPID/environ)"
echo "variables: ${OPENROUTER_API_KEY:-unset} ${ANTHROPIC_API_KEY:-unset}"
"""


def forms(key: str) -> list[str]:
    """Every spelling of `key` a leak could take (base64 trimmed to what depends on the key alone)."""
    raw = key.encode()
    found = [key, json.dumps(key)[1:-1], quote(key, safe=""), quote_plus(key), raw.hex()]
    for offset in range(3):
        encoded = base64.b64encode(b"\0" * offset + raw).decode()
        core = encoded[-(-offset * 8 // 6):(offset + len(raw)) * 8 // 6]
        found += [core, core.replace("+", "-").replace("/", "_")]
    return found


def leaks(written: dict[str, str], key: str = KEY) -> list[str]:
    """Which of `written` (a name for each text) hold a form of `key`, line breaks ignored."""
    return [f"{name}: {form!r}" for name, text_ in written.items()
            for form in forms(key) if form in text_.replace("\\n", "").replace("\n", "")]


def run_agent(model: ScriptedModel, provider: str, tmp_path: Path, *argv: str, extra: dict | None = None):
    workspace, home = tmp_path / "workspace", tmp_path / "home"
    (home / ".claude").mkdir(parents=True, exist_ok=True)
    (home / ".claude" / "settings.json").write_text('{"permissions": {"defaultMode": "bypassPermissions"}}')
    workspace.mkdir(exist_ok=True)
    (workspace / ".env").write_text(KEY + "\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENROUTER_", "ANTHROPIC_", "AGENT_", "CLAUDE_"))}
    base = {"openrouter": ("OPENROUTER_BASE_URL", model.base + "/api/v1/"),
            "anthropic": ("ANTHROPIC_BASE_URL", model.base)}[provider]
    env.update({"HOME": str(home), base[0]: base[1], VARIABLE[provider]: KEY, "AGENT_PROVIDER": provider},
               **(extra or {}))
    return subprocess.run([str(REPO / "your_program.sh"), *argv], cwd=workspace, env=env, stdin=subprocess.DEVNULL,
                          capture_output=True, text=True, timeout=60)


def written_by(done, tmp_path: Path, model: ScriptedModel) -> dict[str, str]:
    """Everything the run wrote or sent, by name."""
    found = {"stdout": done.stdout, "stderr": done.stderr}
    for name in ("run.yaml", "trace.jsonl"):
        if (tmp_path / name).exists():
            found[name] = (tmp_path / name).read_text()
    for path in (tmp_path / "home" / ".claude" / "projects").rglob("*.jsonl"):
        found[path.name] = path.read_text()
    for number, request in enumerate(model.requests, 1):
        found[f"request {number}"] = request.raw
    return found


@pytest.mark.parametrize("provider", ["openrouter", "anthropic"])
def test_a_key_a_command_prints_in_any_encoding_is_redacted_everywhere(provider, model, tmp_path):
    model.script(call("Bash", command=LEAKING_COMMAND), lambda request: text(request.tool_results()[0]))
    done = run_agent(model, provider, tmp_path, "-p", "Show me the key.", "--verbose",
                     "--record", str(tmp_path / "run.yaml"), "--trace", str(tmp_path / "trace.jsonl"))
    assert done.returncode == 0, done.stderr
    written = written_by(done, tmp_path, model)
    assert {"run.yaml", "trace.jsonl", "request 2"} <= set(written)
    assert leaks(written) == []
    result = model.requests[1].tool_results()[0]
    # every encoding was printed, and each became the marker: 3 alignments x (plain + wrapped url-safe) + 3
    assert result.count(MARKER[provider]) >= 9, result
    assert "variables: unset unset" in result  # not in the commands' environment
    environ = base64.b64decode(result.split("environ: ", 1)[1].split()[0])
    assert b"HOME=" in environ and KEY.encode() not in environ  # nor in /proc/<agent pid>/environ
    assert MARKER[provider] in done.stdout


@pytest.mark.parametrize("provider", ["openrouter", "anthropic"])
def test_a_provider_error_echoing_the_key_is_redacted_everywhere(provider, model, tmp_path):
    echo = f"invalid x-api-key: {KEY} (base64 {base64.b64encode(KEY.encode()).decode()})"
    model.script(fail(401, echo))
    done = run_agent(model, provider, tmp_path, "-p", "Hi.", "--output-format", "json",
                     "--record", str(tmp_path / "run.yaml"), "--trace", str(tmp_path / "trace.jsonl"))
    assert done.returncode == 1
    assert "rejected the API key" in done.stderr and MARKER[provider] in done.stderr
    assert MARKER[provider] in json.loads(done.stdout)["result"]
    written = written_by(done, tmp_path, model)
    assert {"run.yaml", "trace.jsonl"} <= set(written)
    assert leaks(written) == []


@pytest.mark.parametrize("provider", ["openrouter", "anthropic"])
def test_a_retried_error_echoing_the_key_is_redacted_in_warnings_and_the_last_error(provider, model, tmp_path):
    model.script(fail(500, f"upstream said {KEY}"), fail(500, f"upstream said {quote(KEY, safe='')}"))
    done = run_agent(model, provider, tmp_path, "-p", "Hi.", "--verbose", "--trace", str(tmp_path / "trace.jsonl"),
                     extra={"AGENT_MAX_RETRIES": "1"})
    assert done.returncode == 1
    assert "retrying" in done.stderr and f"upstream said {MARKER[provider]}" in done.stderr
    assert leaks(written_by(done, tmp_path, model)) == []


def test_the_rule_redacts_every_form_and_nothing_else():
    from agent.secrets.redact import redact, register

    register({"OPENROUTER_API_KEY": KEY, "SHORT_TOKEN": "abc"})  # too short to redact: it would eat text
    try:
        for form in forms(KEY):
            assert redact(f"<{form}>") == "<[OPENROUTER_API_KEY redacted]>" or "[OPENROUTER_API_KEY redacted]" in redact(form)
        wrapped = base64.encodebytes(b"padding " + KEY.encode()).decode()  # lines of 76 characters
        assert leaks({"wrapped": redact(wrapped)}) == [] and "\n" in wrapped.strip()
        assert redact(json.dumps({"text": wrapped})).count("redacted") == 1
        assert redact("abc and a plain sentence") == "abc and a plain sentence"
    finally:
        register({})
