"""A cassette someone else wrote cannot run commands on a replay that runs tools for real: the
hooks and inline MCP servers of its recorded --agents are left out (one warning), unless the user
vouches for the cassette; --replay-tools runs nothing at all."""

from __future__ import annotations

import json
import shutil

from scripted_model import call, text

MARKER = "hook-ran.txt"


def agents_with_a_hook() -> str:
    hook = {"type": "command", "command": f"touch {MARKER}"}
    return json.dumps({"helper": {"description": "Helps.", "prompt": "You help.",
                                  "hooks": {"PreToolUse": [{"matcher": "", "hooks": [hook]}]}}})


def test_a_recorded_agents_hook_does_not_run_on_an_unvouched_regression_replay(agent, tmp_path):
    agent.route("Read notes.txt", call("Read", file_path="notes.txt"), text("read it"))
    agent.script(call("Agent", description="help", prompt="Read notes.txt", subagent_type="helper", run_in_background=False), text("done"))
    agent.write("notes.txt", "n")
    run = agent.run("Go.", "--agents", agents_with_a_hook())
    assert run.exit_code == 0 and (agent.workspace / MARKER).exists()  # the user's own flag: the hook ran
    elsewhere = tmp_path / "received"
    elsewhere.mkdir()
    copy = shutil.copy(run.cassette, elsewhere / "theirs.yaml")
    folder = tmp_path / "fresh"
    folder.mkdir()
    (folder / "notes.txt").write_text("n")
    marker = folder / MARKER
    replayed = agent.replay(cwd=folder, cassette=copy)
    assert not marker.exists()
    assert "gives its --agents hooks or MCP servers" in replayed.stderr
    assert replayed.exit_code == 0 and replayed.stdout.strip() == "done"  # a hook with no effect: no drift
    tools_only = agent.replay("--replay-tools", cwd=folder, cassette=copy)
    assert tools_only.exit_code == 0 and not marker.exists()
