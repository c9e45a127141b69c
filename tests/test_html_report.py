"""`cassette show FILE --html OUT` and `cassette check DIR --html OUT`, looked at in a real browser:
headless Chromium renders each report, and the tests read what it rendered (the prompt, the
answer, subagents nested under the calls that started them, a drift's highlighted paths, that the
page's script ran, that a cassette's text stays text). A long session's report grows linearly.
The screenshot in docs/ is taken here (written when missing, or with UPDATE_SCREENSHOT=1)."""

from __future__ import annotations

import base64
import hashlib
import json
import os
import re
import shutil

import yaml

from agent import cli
from agent.record.cassette_file import to_yaml
from browser import needs_chromium, parse, rendered, screenshot
from conftest import REPO
from scripted_model import Call, call, calls, text

DEMO = REPO / "cassettes" / "demo"
SCREENSHOT = REPO / "docs" / "cassette-report.png"
# a file whose text would be markup, were the report to paste it in unescaped
HOSTILE = '<script>document.title="pwned"</script><img src=x onerror="document.title=1"></pre></details>\n'


def html_of(capsys, *argv: str) -> tuple[int, str, str]:
    """Run `cassette <argv>` in-process: exit code, stdout, stderr."""
    capsys.readouterr()
    code = cli.main(["cassette", *argv])
    out, err = capsys.readouterr()
    return code, out, err


@needs_chromium
def test_a_session_report_shows_the_conversation_with_parallel_and_nested_subagents(agent, tmp_path, capsys):
    agent.write("notes.txt", HOSTILE + "".join(f"line {n}\n" for n in range(2, 30)))
    agent.script(
        call("Read", "Reading it first.", file_path="notes.txt"),
        calls(Call("Agent", {"description": "left", "prompt": "Left task.", "subagent_type": "general-purpose", "run_in_background": False}),
              Call("Agent", {"description": "right", "prompt": "Right task.", "subagent_type": "general-purpose", "run_in_background": False})),
        text("Both done: left and right."),
    )
    agent.route("Left task.", call("Agent", description="deeper", prompt="Deep task.", subagent_type="Explore", run_in_background=False),
                text("left done after the deep one"))
    agent.route("Deep task.", text("deep found"))
    agent.route("Right task.", call("Read", file_path="notes.txt"), text("right done"))
    if agent.recording:
        assert agent.run("Summarise notes.txt with two helpers.").exit_code == 0
    out = tmp_path / "report" / "session.html"

    code, stdout, stderr = html_of(capsys, "show", str(agent.cassette_path(1)), "--html", str(out))
    assert (code, stdout) == (0, ""), stderr
    assert stderr == f"wrote {out}: 8 requests of {agent.cassette_path(1)}\n"
    page = rendered(out)
    assert page.find("html").attrs.get("data-script") == "ran"  # the page's script ran
    assert "Summarise notes.txt with two helpers." in page.find("div", "prompt").text
    assert page.find(id="answer").text.strip() == "answer" + "Both done: left and right."
    first = page.find("details", "req", data_request="1")
    assert "main" in first.find("summary").text and " in · " in first.text and "$" in first.find("summary").text
    read = first.find("div", "call", data_tool="Read")
    assert "notes.txt" in read.find("summary").text and "line 29" in read.find("div", "result").text

    # the two parallel subagents hang under the calls of request 2, the nested one under the left one's call
    helpers = page.find_all("details", "sub", data_agent="general-purpose")
    assert sorted(h.find("summary").text.split(" · ")[-1] for h in helpers) == ["Left task.", "Right task."]
    for helper in helpers:
        holders = [n for n in helper.ancestors() if n.tag == "details" and "req" in n.classes()]
        assert holders[0].attrs["data-request"] == "2" and helper.parent.attrs["data-tool"] == "Agent"
    (deep,) = page.find_all("details", "sub", data_agent="Explore")
    assert deep.attrs["data-depth"] == "2" and "deep found" in deep.text
    left = next(h for h in helpers if "Left task." in h.find("summary").text)
    assert deep in left.find_all("details", "sub") and "left done after the deep one" in left.text
    right = next(h for h in helpers if "Right task." in h.find("summary").text)
    assert "right done" in right.text and deep not in right.find_all("details", "sub")

    # a cassette's text is text: no script of its own ran or exists, its markup is shown as written
    assert len(page.find_all("script")) == 1 and page.find("title").text.startswith("cassette ")
    assert not page.find_all("img")
    assert any(HOSTILE.strip() in node.text for node in page.find_all("pre"))


@needs_chromium
def test_a_forked_skill_nests_under_its_skill_call(provider, tmp_path, capsys):
    cassette = DEMO / f"test_on_call_skill_runs_in_a_subagent-{provider}.yaml"
    out = tmp_path / "skill.html"
    assert html_of(capsys, "show", str(cassette), "--html", str(out))[0] == 0
    page = rendered(out)
    (fork,) = page.find_all("details", "sub", data_agent="skill:on-call")
    assert fork.parent.attrs["data-tool"] == "Skill" and "blueberry" in fork.text
    assert "blueberry" in page.find(id="answer").text


@needs_chromium
def test_the_report_of_the_demo_reviewer_session_as_a_screenshot(tmp_path, capsys, monkeypatch):
    """The picture README shows: the bundled demo whose reviewer subagent works in its own context."""
    out = tmp_path / "reviewer.html"
    monkeypatch.chdir(REPO)  # the page names the cassette as given: as a user in the repository would
    assert html_of(capsys, "show", "cassettes/demo/test_reviewer_agent_reviews_in_its_own_context-openrouter.yaml",
                   "--html", str(out))[0] == 0
    page = rendered(out)
    assert page.find("details", "sub", data_agent="reviewer").parent.attrs["data-tool"] == "Agent"
    shot = tmp_path / "report.png"
    screenshot(out, shot)
    assert shot.read_bytes().startswith(b"\x89PNG")
    if not SCREENSHOT.exists() or os.environ.get("UPDATE_SCREENSHOT") == "1":
        SCREENSHOT.parent.mkdir(exist_ok=True)
        shutil.copy(shot, SCREENSHOT)


@needs_chromium
def test_a_check_report_has_each_cassette_and_the_drift_side_by_side(agent, tmp_path, capsys):
    skill = agent.skill("release-notes", "Use this skill to write release notes.", "List the changes since the last tag.")
    agent.write("CLAUDE.md", "Keep answers short.\n")
    agent.write("CHANGES.txt", "- faster start\n")
    agent.script(call("Read", file_path="CHANGES.txt"), text("One change: a faster start."), text("hello"))
    if agent.recording:
        assert agent.run("What changed?").exit_code == 0
        assert agent.run("Say hello.", "--setting-sources", "").exit_code == 0  # reads no skill or CLAUDE.md
    ci = tmp_path / "ci"
    ci.mkdir()
    shutil.copy(agent.cassette_path(1), ci / "a-what-changed.yaml")
    shutil.copy(agent.cassette_path(2), ci / "b-hello.yaml")
    skill.write_text(skill.read_text().replace("write release notes", "write release notes for the team"))
    (agent.workspace / "CLAUDE.md").write_text("Keep answers very short.\n")
    out = tmp_path / "check.html"

    code, stdout, stderr = html_of(capsys, "check", str(ci), "--html", str(out), "--jobs", "1")
    assert code == 1 and stdout.startswith(f"drift {ci / 'a-what-changed.yaml'}: ") and f"ok    {ci / 'b-hello.yaml'}\n" in stdout
    assert f"wrote {out}: 2 cassettes\n" in stderr
    page = rendered(out)
    assert page.find("html").attrs.get("data-script") == "ran"
    drifted, fine = page.find_all("section", "cassette")
    assert (drifted.attrs["data-status"], fine.attrs["data-status"]) == ("drift", "ok")
    assert fine.find("div", "line").text == f"ok {ci / 'b-hello.yaml'}"
    assert drifted.find("div", "line").text == f"drift {ci / 'a-what-changed.yaml'}"
    listed = [row.find("code").text for row in drifted.find("table", "paths").find_all("tr")[1:]]
    assert len(listed) >= 2  # the skill's catalog entry and the CLAUDE.md text
    recorded, sent = drifted.find("div", "recorded"), drifted.find("div", "sent")
    for side in (recorded, sent):
        assert [node.attrs["data-path"] for node in side.find_all(css="diff")] == listed
    assert any("for the team" in mark.text for mark in sent.find_all("mark", "change"))
    assert not any("for the team" in mark.text for mark in recorded.find_all("mark", "change"))
    assert any("very short" in mark.text for mark in sent.find_all("mark", "change"))


@needs_chromium
def test_a_long_session_report_grows_linearly_and_renders(agent, tmp_path, capsys):
    """300 reads: the report grows with the session (twice the turns, about twice the bytes, where
    a page repeating each request's conversation would take four times), and Chromium renders it."""
    sizes = {150: 0, 300: 0}
    for count in sizes:
        for n in range(count):
            agent.write(f"notes/{n}.txt", f"note {n}\n")
        agent.script(*[call("Read", file_path=f"notes/{n}.txt") for n in range(count)], text(f"Read {count} notes."))
    if agent.recording:
        for count in sizes:
            assert agent.run(f"Read the first {count} notes.", "--max-turns", "400").exit_code == 0
    for number, count in enumerate(sizes, 1):
        out = tmp_path / f"long-{count}.html"
        assert html_of(capsys, "show", str(agent.cassette_path(number)), "--html", str(out))[0] == 0
        sizes[count] = out.stat().st_size
    assert 1.6 < sizes[300] / sizes[150] < 2.3, sizes
    assert sizes[300] < 1_000_000, sizes  # a few kilobytes a turn
    page = rendered(tmp_path / "long-300.html")
    assert len(page.find_all("details", "req")) == 301 and len(page.find_all("div", "conv")) == 1
    assert "note 299" in page.find("details", "req", data_request="300").text
    assert page.find(id="answer").text.endswith("Read 300 notes.")

    # a drift late in a long session is a small page around the differing request, not its conversation
    recorded = agent.cassette_path(1).read_text()
    assert recorded.count("\n    note 140\n") == 1  # the recorded Read's output, in tool_runs
    ci = tmp_path / "ci"
    ci.mkdir()
    (ci / "long.yaml").write_text(recorded.replace("\n    note 140\n", "\n    note 140, changed\n"))
    code, stdout, _ = html_of(capsys, "check", str(ci), "--html", str(tmp_path / "check.html"), "--jobs", "1")
    assert code == 1 and ": request 142 differs" in stdout
    assert (tmp_path / "check.html").stat().st_size < 60_000
    drift = rendered(tmp_path / "check.html").find("div", "drift")
    (where,) = [row.find("code").text for row in drift.find("table", "paths").find_all("tr")[1:]]
    (changed,) = drift.find("div", "sent").find_all(css="diff")
    assert changed.attrs["data-path"] == where and changed.find("mark", "change").text == ", changed\n"


def test_html_bad_usage_is_one_line_before_anything_runs(tmp_path, capsys):
    cassette = str(DEMO / "test_fix_the_failing_test-openrouter.yaml")
    for argv, words in [
        (["show", cassette, "--html", str(tmp_path)], "--html: "),
        (["show", cassette, "--html", str(tmp_path / "x.html"), "--json"], "--html writes the whole session"),
        (["show", cassette, "--html", str(tmp_path / "x.html"), "--request", "1"], "--html writes the whole session"),
        (["check", str(DEMO), "--html", str(tmp_path)], "--html: "),
    ]:
        code, stdout, stderr = html_of(capsys, *argv)
        assert (code, stdout) == (2, ""), (argv, stdout, stderr)
        assert stderr.startswith("error: ") and words in stderr and stderr.count("\n") == 1, stderr
    assert not (tmp_path / "x.html").exists()


@needs_chromium
def test_names_from_a_hostile_cassette_stay_text_in_attributes_too(tmp_path, capsys):
    """An agent type (in the cassette's labels, the Agent call and the system prompt) that tries to
    close its attribute and open a script: the page keeps it as the attribute's value."""
    name = 'rev"><script>document.title="pwned"</script><b class="x'

    def swapped(value):
        if isinstance(value, dict):
            return {key: swapped(item) for key, item in value.items()}
        if isinstance(value, list):
            return [swapped(item) for item in value]
        if isinstance(value, str) and value.startswith("{"):  # a tool call's arguments, as JSON text
            try:
                return json.dumps(swapped(json.loads(value)))
            except ValueError:
                pass
        return value.replace("reviewer", name) if isinstance(value, str) else value

    data = yaml.safe_load((DEMO / "test_reviewer_agent_reviews_in_its_own_context-openrouter.yaml").read_text())
    hostile = tmp_path / "hostile.yaml"
    hostile.write_text(to_yaml(swapped(data)))
    out = tmp_path / "hostile.html"
    assert html_of(capsys, "show", str(hostile), "--html", str(out))[0] == 0
    page = rendered(out)
    (sub,) = page.find_all("details", "sub")
    assert sub.attrs["data-agent"] == name and sub.parent.attrs["data-tool"] == "Agent"
    assert len(page.find_all("script")) == 1 and not page.find_all("b", "x")
    assert page.find("title").text.startswith("cassette ") and f"subagent {name}" in sub.find("summary").text


def test_the_report_is_one_self_contained_page(provider, tmp_path, capsys):
    """Without a browser too: nothing is fetched (no URL, one inline script the page's policy
    names by its hash), and the subagent is nested under the call that started it."""
    out = tmp_path / "reviewer.html"
    cassette = DEMO / f"test_reviewer_agent_reviews_in_its_own_context-{provider}.yaml"
    assert html_of(capsys, "show", str(cassette), "--html", str(out))[0] == 0
    written = out.read_text()
    # URLs may appear as text (tool descriptions mention http://), never as something to load
    assert not re.search(r"""(?:href|src|action)\s*=\s*["']?(?:https?:)?//|url\(\s*["']?(?:https?:)?//|@import""", written)
    assert " src=" not in written and "<link" not in written
    page = parse(written)
    (script,) = page.find_all("script")
    policy = page.find("meta", http_equiv="Content-Security-Policy").attrs["content"]
    digest = base64.b64encode(hashlib.sha256(script.text.encode()).digest()).decode()
    assert f"script-src 'sha256-{digest}'" in policy and "default-src 'none'" in policy
    assert page.find("details", "sub", data_agent="reviewer").parent.attrs["data-tool"] == "Agent"
