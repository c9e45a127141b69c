"""`make smoke`: an opt-in live check against a real model server, on both wire formats.

It runs a few prompts (a plain answer, a Read, a Bash call, a skill) with `--record` against the
endpoint the environment points at, then reads each cassette back and reports, per request, the
HTTP status, whether the reply decoded, and why it stopped. It is not part of `make test`: it
needs a server, and what a model answers is its own business; what it checks is that the server
accepts every request we send and that we can read every reply it gives.

    OPENROUTER_API_KEY [OPENROUTER_BASE_URL]   the chat wire (OpenRouter, or any OpenAI-compatible server)
    ANTHROPIC_API_KEY  [ANTHROPIC_BASE_URL]    the Messages wire (Anthropic, or a compatible server)
    SMOKE_MODEL                                the model (else AGENT_MODEL, else the provider's default)

A wire with neither a key nor a base URL is skipped; a base URL alone (a local server) gets a
dummy key. `--only NAME,...` runs some of the prompts. `--save DIR` keeps the cassettes and adds
each run to `DIR/results.json`, which `tests/test_live.py` replays offline; `--label TEXT` says in
each saved cassette and run what it was recorded against. Exit status 0 when every request got a
2xx reply that decoded.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
from agent.errors import ProviderError  # noqa: E402
from agent.model.wire import chat, messages  # noqa: E402
from agent.record.cassette_file import read as read_cassette  # noqa: E402

WIRES = {"openrouter": ("OPENROUTER_API_KEY", "OPENROUTER_BASE_URL", chat), "anthropic": ("ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL", messages)}


@dataclass(frozen=True)
class Prompt:
    name: str
    text: str
    files: dict[str, str] = field(default_factory=dict)
    max_turns: int = 3
    env: dict[str, str] = field(default_factory=dict)


PROMPTS = [
    Prompt("plain-answer", "Reply with exactly one word: pong"),
    Prompt("read-a-file", "Use the Read tool to read notes.txt, then tell me the password written in it.",
           {"notes.txt": "The password is swordfish.\n"}),
    Prompt("run-a-command", "Use the Bash tool to run the command `echo smoke-ok`, then reply with what it printed."),
    Prompt("slash-skill", "/greet", {".claude/skills/greet/SKILL.md": (
        "---\nname: greet\ndescription: Greets the user.\n---\n\nReply with exactly: hello from the skill\n"
    )}),
    # the server's own way of saying a reply hit the output limit
    Prompt("cut-off-answer", "Count from 1 to 100, separated by commas.", env={"CLAUDE_CODE_MAX_OUTPUT_TOKENS": "8"}),
]


def run_prompt(prompt: Prompt, provider: str, env: dict[str, str], cassette: Path) -> dict:
    """Run the agent on `prompt` in a fresh workspace, recording to `cassette`; what it printed."""
    root = Path(tempfile.mkdtemp(prefix="agent-smoke-"))
    workspace, home = root / "workspace", root / "home"
    home.mkdir()
    for relative, content in {**prompt.files, ".keep": ""}.items():
        (workspace / relative).parent.mkdir(parents=True, exist_ok=True)
        (workspace / relative).write_text(content)
    argv = [sys.executable, "-I", "-m", "agent", "-p", prompt.text, "--provider", provider, "--output-format", "json",
            "--max-turns", str(prompt.max_turns), "--no-session-persistence", "--dangerously-skip-permissions",
            "--record", str(cassette)]
    process = subprocess.run(
        argv, cwd=workspace, env={**env, **prompt.env, "HOME": str(home)}, capture_output=True, text=True, timeout=1800
    )
    shutil.rmtree(root, ignore_errors=True)
    try:
        result = json.loads(process.stdout)
    except ValueError:
        result = {}
    return {"exit_code": process.returncode, "result": result.get("result"), "stop_reason": result.get("stop_reason"),
            "num_turns": result.get("num_turns"), "stderr": process.stderr.strip().splitlines()[-1:]}


def check_cassette(cassette: Path, wire) -> list[tuple[int, str]]:
    """(HTTP status, what the reply decoded to or why it did not) of each recorded exchange."""
    if not cassette.exists():
        return []
    rows = []
    for interaction in read_cassette(str(cassette)).interactions:
        status, body = interaction.status, interaction.response
        if not isinstance(body, (dict, list)):
            rows.append((status, "not JSON"))
            continue
        if status >= 400:
            rows.append((status, f"error: {wire.error_text(body)[:100]}"))
            continue
        try:
            reply = wire.decode(body)
        except ProviderError as exc:
            rows.append((status, f"did not decode: {exc}"))
            continue
        calls = ", ".join(call.name for call in reply.tool_calls) or "no calls"
        rows.append((status, f"decoded: stop {reply.stop_reason}, {len(reply.text)} chars, {calls}"))
    return rows


def label(cassette: Path, text: str) -> None:
    """Mark a saved cassette as live: a comment on top, and a loopback server named for what it is
    (the recorder calls any loopback host the scripted model)."""
    body = cassette.read_text().replace("://scripted-model/", "://local-server/")
    cassette.write_text(f"# LIVE recording, not scripted: {text}\n" + body)


def manifest_entry(cassette: Path, text: str, provider: str, env: dict, base: str, prompt: Prompt, outcome: dict) -> dict:
    """What `tests/test_live.py` needs to replay a saved run (its setup) and to check it (its end)."""
    return {
        "cassette": cassette.name, "label": text, "provider": provider, "base_url": env.get(base),
        "model": env.get("AGENT_MODEL"), "prompt": prompt.text, "files": prompt.files, "max_turns": prompt.max_turns,
        "env": {"AGENT_MAX_RETRIES": env["AGENT_MAX_RETRIES"], **prompt.env},
        **{key: value for key, value in outcome.items() if key != "stderr"},
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--save", metavar="DIR", help="keep the cassettes and results.json in DIR")
    parser.add_argument("--label", default="a live endpoint", help="what the saved cassettes were recorded against")
    parser.add_argument("--only", help="comma-separated prompt names (default: all)")
    args = parser.parse_args()
    prompts = [p for p in PROMPTS if not args.only or p.name in args.only.split(",")]
    env = {k: v for k, v in os.environ.items() if k != "AGENT_PROVIDER"}
    env.setdefault("AGENT_MAX_RETRIES", "1")  # a server that fails a request tends to fail it again
    model = env.get("SMOKE_MODEL") or env.get("AGENT_MODEL")
    if model:
        env["AGENT_MODEL"] = model
    out = Path(args.save).resolve() if args.save else Path(tempfile.mkdtemp(prefix="agent-smoke-cassettes-"))
    out.mkdir(parents=True, exist_ok=True)
    manifest = out / "results.json"
    runs = json.loads(manifest.read_text())["runs"] if args.save and manifest.exists() else []
    healthy, tried = True, 0
    for provider, (key, base, wire) in WIRES.items():
        if not (env.get(key) or env.get(base)):
            print(f"{provider}: skipped (set {key} or {base})")
            continue
        wire_env = {**env, key: env.get(key) or "smoke-dummy-key"}
        for prompt in prompts:
            tried += 1
            cassette = out / f"{prompt.name}-{provider}.yaml"
            outcome = run_prompt(prompt, provider, wire_env, cassette)
            rows = check_cassette(cassette, wire)
            healthy &= bool(rows) and all(200 <= status < 300 and text.startswith("decoded") for status, text in rows)
            print(f"{provider} {prompt.name}: exit {outcome['exit_code']}, {outcome['num_turns']} turns, "
                  f"answer {outcome['result']!r}")
            for number, (status, text) in enumerate(rows, 1):
                print(f"  request {number}: HTTP {status}, {text}")
            if not rows:
                print(f"  no request recorded: {' '.join(outcome['stderr'])}")
            if args.save and cassette.exists():
                label(cassette, args.label)
                runs = [run for run in runs if run["cassette"] != cassette.name]
                runs.append(manifest_entry(cassette, args.label, provider, env, base, prompt, outcome))
    if args.save:
        runs.sort(key=lambda run: run["cassette"])
        manifest.write_text(json.dumps({"runs": runs}, indent=2, ensure_ascii=False) + "\n")
    print(f"cassettes in {out}")
    if not tried:
        print("nothing to check: point OPENROUTER_* or ANTHROPIC_* at an endpoint")
        return 2
    print("every request was accepted and every reply decoded" if healthy else "some requests failed or did not decode")
    return 0 if healthy else 1


if __name__ == "__main__":
    raise SystemExit(main())
