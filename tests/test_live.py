"""Sessions recorded LIVE against a real model server (`cassettes/live/`, made by `make smoke` with
`--save`; `results.json` there says against what, and how each run ended), replayed offline: the
agent must send exactly the requests it sent then, and end each run the same way. Unlike every
other cassette, nobody scripted these replies."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from agent import cli
from smoke import PROMPTS

LIVE = Path(__file__).resolve().parent.parent / "cassettes" / "live"
MANIFEST = json.loads((LIVE / "results.json").read_text())
KEYS = {"openrouter": ("OPENROUTER_API_KEY", "OPENROUTER_BASE_URL"), "anthropic": ("ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL")}


def test_the_live_recordings_cover_both_wires_and_say_what_they_are():
    pairs = {(run["provider"], run["prompt"]) for run in MANIFEST["runs"]}
    assert pairs == {(provider, prompt.text) for provider in KEYS for prompt in PROMPTS}
    for run in MANIFEST["runs"]:
        assert "llama-server" in run["label"]
        assert (LIVE / run["cassette"]).read_text().startswith(f"# LIVE recording, not scripted: {run['label']}\n")


@pytest.mark.parametrize("run", MANIFEST["runs"], ids=lambda run: run["cassette"].removesuffix(".yaml"))
def test_a_live_recording_replays_offline_to_the_same_end(run, tmp_path, monkeypatch, capsys):
    workspace, home = tmp_path / "workspace", tmp_path / "home"
    home.mkdir()
    for relative, content in {**run["files"], ".keep": ""}.items():
        (workspace / relative).parent.mkdir(parents=True, exist_ok=True)
        (workspace / relative).write_text(content)
    for variable in list(os.environ):
        if variable.startswith(("OPENROUTER_", "ANTHROPIC_", "AGENT_", "CLAUDE_")) or variable == "MAX_THINKING_TOKENS":
            monkeypatch.delenv(variable)
    key, base = KEYS[run["provider"]]
    settings = {key: "live-replay-key", base: run["base_url"], "AGENT_MODEL": run["model"], "HOME": str(home), **run["env"]}
    for variable, value in settings.items():
        if value is not None:  # a run against a provider's default URL or model recorded none
            monkeypatch.setenv(variable, value)
    monkeypatch.chdir(workspace)
    code = cli.main([
        "-p", run["prompt"], "--provider", run["provider"], "--output-format", "json", "--max-turns", str(run["max_turns"]),
        "--no-session-persistence", "--dangerously-skip-permissions", "--replay", str(LIVE / run["cassette"]),
    ])
    result = json.loads(capsys.readouterr().out)
    assert (code, result["result"], result["stop_reason"], result["num_turns"]) == (
        run["exit_code"], run["result"], run["stop_reason"], run["num_turns"],
    )
