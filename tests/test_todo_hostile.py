"""The task list's files (~/.claude/tasks/<session-id>/) as someone else may have left them, and
a list pushed past what it can keep: a file left out when the list is read back keeps its id (a
new task never overwrites it), a link in the folder is never written through, the tasks read back
are the lowest ids, and a task too big to be read back, or one past the most the list keeps, is a
tool error that leaves the list as it was."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from agent.tools.base import ToolError
from agent.tools.todo.store import MAX_TASK_FILES, TASK_FILE_BYTES, TaskList


def task(task_id: int, subject: str = "s") -> str:
    return json.dumps({"id": str(task_id), "subject": subject, "description": "d", "status": "pending",
                       "blocks": [], "blockedBy": []})


def test_a_file_left_out_keeps_its_id_and_is_never_overwritten(tmp_path):
    folder = tmp_path / "tasks"
    folder.mkdir()
    (folder / "1.json").write_text(task(1))
    (folder / "2.json").write_text("{")  # being written by another run, or broken: not a task, still someone's
    (folder / "3.json").write_text(json.dumps({"id": "3", "huge": "x" * (TASK_FILE_BYTES + 1)}))
    tasks = TaskList(folder)
    assert [t["id"] for t in tasks.all()] == ["1"]
    assert tasks.create("new", "d")["id"] == "4"
    assert (folder / "2.json").read_text() == "{" and len((folder / "3.json").read_bytes()) > TASK_FILE_BYTES


def test_links_in_the_folder_are_never_written_through(tmp_path):
    folder, victim, mark = tmp_path / "tasks", tmp_path / "victim.txt", tmp_path / "mark.txt"
    folder.mkdir()
    victim.write_text("precious")
    mark.write_text("also precious")
    (folder / "1.json").symlink_to(victim)  # left out when read back, as any link is
    (folder / ".highwatermark").symlink_to(mark)
    tasks = TaskList(folder)
    created = tasks.create("a", "d")
    assert created["id"] == "2"  # the link's name keeps its id too
    tasks.update("2", {"status": "deleted"})  # writes .highwatermark
    os.link(victim, folder / "5.json")  # a hard link: rewriting it in place would change the victim
    tasks = TaskList(folder)
    assert tasks.create("b", "d")["id"] == "6"
    tasks.update("6", {"subject": "b2"})
    assert victim.read_text() == "precious" and mark.read_text() == "also precious"
    assert (folder / ".highwatermark").read_text() == "2" and not (folder / ".highwatermark").is_symlink()


def test_the_lowest_ids_are_read_back_and_the_list_keeps_no_more_than_it_reads(tmp_path):
    folder = tmp_path / "tasks"
    folder.mkdir()
    for task_id in range(1, MAX_TASK_FILES + 101):
        (folder / f"{task_id}.json").write_text(task(task_id))
    tasks = TaskList(folder)
    ids = [t["id"] for t in tasks.all()]
    assert ids == [str(n) for n in range(1, MAX_TASK_FILES + 1)]  # by number, not as names sort ("10" < "2")
    with pytest.raises(ToolError, match=f"holds {MAX_TASK_FILES} tasks"):
        tasks.create("one more", "d")
    tasks.update("1", {"status": "deleted"})
    assert tasks.create("one more", "d")["id"] == str(MAX_TASK_FILES + 101)  # past every file in the folder
    assert json.loads((folder / f"{MAX_TASK_FILES + 100}.json").read_text())["subject"] == "s"


def test_a_task_too_big_to_be_read_back_is_refused_and_the_list_stays_as_it_was(tmp_path):
    folder = tmp_path / "tasks"
    tasks = TaskList(folder)
    with pytest.raises(ToolError, match="over the 256 KB"):
        tasks.create("big", "x" * TASK_FILE_BYTES)
    assert tasks.all() == [] and not any(folder.glob("*.json"))
    first = tasks.create("a", "d")
    assert first["id"] == "1"
    before = (folder / "1.json").read_text()
    with pytest.raises(ToolError, match="over the 256 KB"):
        tasks.update("1", {"description": "y" * TASK_FILE_BYTES, "status": "in_progress"})
    for key in ("k0", "k1"):  # metadata merged call after call grows the task too
        tasks.update("1", {"metadata": {key: "z" * (TASK_FILE_BYTES // 3)}})
    with pytest.raises(ToolError, match="over the 256 KB"):
        tasks.update("1", {"metadata": {"k2": "z" * (TASK_FILE_BYTES // 3)}, "addBlockedBy": ["1"]})
    assert sorted(tasks.get("1")["metadata"]) == ["k0", "k1"] and tasks.get("1")["blockedBy"] == []
    assert len((folder / "1.json").read_bytes()) <= TASK_FILE_BYTES
    assert tasks.get("1")["status"] == "pending"
    assert [t["id"] for t in TaskList(folder).all()] == ["1"]  # every task written can be read back
    assert json.loads(before)["description"] == "d"


def test_a_lone_surrogate_in_a_subject_is_written_escaped_and_read_back(tmp_path):
    tasks = TaskList(tmp_path / "tasks")
    tasks.create("half \ud800 a pair", "d")
    assert TaskList(tmp_path / "tasks").get("1")["subject"] == "half \ud800 a pair"


def test_a_session_whose_folder_holds_a_broken_file_and_a_link_gives_new_tasks_fresh_ids(agent, tmp_path):
    from scripted_model import call, text
    from test_todo_tools import results

    session_id = "0b7e5f4c-1d2a-4c3b-9e8f-123456789abc"
    folder = agent.home / ".claude" / "tasks" / session_id
    folder.mkdir(parents=True)
    victim = tmp_path / "victim.txt"
    victim.write_text("precious")
    (folder / "1.json").write_text('{"id": "1", "subject": ')
    (folder / "2.json").symlink_to(victim)
    agent.script(call("TaskList"), call("TaskCreate", subject="Fresh", description="d"),
                 call("TaskUpdate", taskId="3", subject="Fresher"), call("TaskList"), text("Done."))
    run = agent.run("Plan.", "--session-id", session_id)
    assert run.exit_code == 0, run.stderr
    assert results(agent, run) == ["No tasks found", "Task #3 created successfully: Fresh", "Updated task #3 subject",
                                   "#3 [pending] Fresher"]
    assert (folder / "1.json").read_text() == '{"id": "1", "subject": ' and victim.read_text() == "precious"


def test_agents_creating_and_linking_tasks_at_once_get_distinct_ids_and_consistent_files(tmp_path):
    from concurrent.futures import ThreadPoolExecutor

    folder = tmp_path / "tasks"
    tasks = TaskList(folder)
    first = tasks.create("root", "d")["id"]

    def work(n: int) -> str:
        created = tasks.create(f"t{n}", "d")["id"]
        tasks.update(created, {"addBlockedBy": [first], "status": "in_progress"})
        return created

    with ThreadPoolExecutor(8) as pool:
        ids = list(pool.map(work, range(64)))
    assert sorted(ids, key=int) == [str(n) for n in range(2, 66)]
    again = {t["id"]: t for t in TaskList(folder).all()}
    assert sorted(again[first]["blocks"], key=int) == sorted(ids, key=int) and all(again[i]["blockedBy"] == [first] for i in ids)
