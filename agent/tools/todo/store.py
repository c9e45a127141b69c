"""The session's task list (Claude Code's TaskCreate/TaskGet/TaskList/TaskUpdate), shared by the
main conversation and its foreground subagents as in Claude Code 2.1.332, and kept where Claude
Code keeps it: `~/.claude/tasks/<session-id>/<id>.json`, so `--continue` and `--resume` (which
keep the session id) find it again.

A task is {id, subject, description, activeForm?, owner?, status, blocks, blockedBy, metadata?}.
Ids count up from 1 and are never reused: the highest id deleted is kept in `.highwatermark`.
Dependencies are kept both ways (a task's `blocks` is the other's `blockedBy`) and stay when a
blocker completes; what a blocker that completed no longer blocks is left out where tasks are
shown (`open_blockers`). Deleting a task removes it from every other task's lists.

The files are read back bounded and checked in shape: one that is not a task is left out, but
its id (as any name `<id>.json` in the folder) is never given to a new task, so nothing someone
else left there is overwritten; a link there is replaced, never written through. The list keeps
at most MAX_TASK_FILES tasks (the lowest ids are read back), each small enough to be read back.
"""

from __future__ import annotations

import json
import logging
import os
import re
import stat
import threading
from itertools import islice
from pathlib import Path
from typing import Any

from agent.tools.base import ToolError
from agent.workspace import load_json, read_bounded, save_file

log = logging.getLogger("agent")

STATUSES = ("pending", "in_progress", "completed")
DELETED = "deleted"
TASK_FILE_BYTES = 256 * 1024
MAX_TASK_FILES = 1000  # tasks of one session kept, and read back
MAX_SCANNED = 20 * MAX_TASK_FILES  # entries of the folder looked at
HIGH_WATERMARK = ".highwatermark"
_ID = re.compile(r"[1-9][0-9]{0,15}")
# the order of a task's keys in its file, as Claude Code writes them
_KEYS = ("id", "subject", "description", "activeForm", "owner", "status", "blocks", "blockedBy", "metadata")


def tasks_folder(home: Path, session_id: str) -> Path:
    """Where Claude Code keeps the tasks of session `session_id`."""
    return Path(home) / ".claude" / "tasks" / session_id


class TaskList:
    """The tasks of one session, in memory and (given a `folder`) on disk. Every method is safe to
    call from several agents' threads at once."""

    def __init__(self, folder: Path | None = None) -> None:
        self.folder = folder
        self._lock = threading.RLock()
        self._tasks: dict[str, dict[str, Any]] = {}
        self._highest = 0  # the highest id ever given, deleted ones included
        self._watermark = 0  # the highest id deleted (Claude Code's .highwatermark)
        if folder is not None:
            self._load(folder)

    def create(self, subject: str, description: str, active_form: str | None = None,
               metadata: dict[str, Any] | None = None) -> dict[str, Any]:
        """A new pending task with the next id (ToolError when the list is full or the task too big)."""
        with self._lock:
            if len(self._tasks) >= MAX_TASK_FILES:
                raise ToolError(f"The task list holds {MAX_TASK_FILES} tasks, the most it keeps; delete tasks that "
                                "are done (TaskUpdate with status deleted) before creating more.")
            task: dict[str, Any] = {"id": self._next_id(), "subject": subject, "description": description}
            if active_form is not None:
                task["activeForm"] = active_form
            task.update(status="pending", blocks=[], blockedBy=[])
            if metadata is not None:
                task["metadata"] = dict(metadata)
            data = _encoded(task)
            self._highest = int(task["id"])
            self._tasks[task["id"]] = task
            self._write(task["id"], data)
            return dict(task)

    def _next_id(self) -> str:
        """The id after the highest ever given whose file name nobody took meanwhile (another run)."""
        number = self._highest + 1
        while self.folder is not None and os.path.lexists(self.folder / f"{number}.json"):
            number += 1
        if not _ID.fullmatch(str(number)):
            raise ToolError("The task list has no ids left to give; start a new session for new tasks.")
        return str(number)

    def get(self, task_id: str) -> dict[str, Any] | None:
        """A copy of task `task_id`, or None."""
        with self._lock:
            task = self._tasks.get(task_id)
            return _copy(task) if task is not None else None

    def all(self) -> list[dict[str, Any]]:
        """Copies of every task, by id."""
        with self._lock:
            return [_copy(self._tasks[key]) for key in sorted(self._tasks, key=int)]

    def open_blockers(self, task: dict[str, Any]) -> list[str]:
        """The tasks blocking `task` that are not completed (Claude Code shows only those)."""
        with self._lock:
            return [b for b in task.get("blockedBy", []) if b in self._tasks and self._tasks[b]["status"] != "completed"]

    def update(self, task_id: str, changes: dict[str, Any]) -> tuple[list[str], dict[str, str] | None] | None:
        """Apply `changes` (TaskUpdate's input less taskId) to task `task_id`: the names of the
        fields that changed, in Claude Code's order, and the status change ({from, to}) if any;
        None when there is no such task. Status `deleted` removes the task."""
        with self._lock:
            if task_id not in self._tasks:
                return None
            if changes.get("status") == DELETED:
                status = self._tasks[task_id]["status"]
                self._delete(task_id)
                return ["deleted"], {"from": status, "to": DELETED}
            # changed on copies, kept only once every task touched can still be read back
            copies: dict[str, dict[str, Any]] = {}
            task = self._copy_of(copies, task_id)
            fields: list[str] = []
            for key in ("subject", "description", "activeForm", "owner"):
                if key in changes and task.get(key) != changes[key]:
                    task[key] = changes[key]
                    fields.append(key)
            if "metadata" in changes:
                merged = {**task.get("metadata", {}), **changes["metadata"]}
                task["metadata"] = {key: value for key, value in merged.items() if value is not None}
                fields.append("metadata")
            moved = None
            if "status" in changes and changes["status"] != task["status"]:
                moved = {"from": task["status"], "to": changes["status"]}
                task["status"] = changes["status"]
                fields.append("status")
            if self._link(copies, task_id, changes.get("addBlocks", []), "blocks", "blockedBy"):
                fields.append("blocks")
            if self._link(copies, task_id, changes.get("addBlockedBy", []), "blockedBy", "blocks"):
                fields.append("blockedBy")
            written = {key: _encoded(_ordered(copies[key])) for key in sorted(copies, key=int)}
            for key, data in written.items():
                self._tasks[key] = _ordered(copies[key])
                self._write(key, data)
            return fields, moved

    def _copy_of(self, copies: dict[str, dict[str, Any]], task_id: str) -> dict[str, Any]:
        """The update's copy of task `task_id` (made when first needed)."""
        return copies.setdefault(task_id, _copy(self._tasks[task_id]))

    def _link(self, copies: dict[str, dict[str, Any]], task_id: str, others: list[str], mine: str,
              theirs: str) -> bool:
        """Add each existing task of `others` to this task's `mine` list and this task to its
        `theirs` list, on the update's `copies`; whether any was new."""
        added = False
        for other in others:
            if other not in self._tasks or other in self._copy_of(copies, task_id)[mine]:
                continue
            self._copy_of(copies, task_id)[mine].append(other)
            if task_id not in self._copy_of(copies, other)[theirs]:
                self._copy_of(copies, other)[theirs].append(task_id)
            added = True
        return added

    def _delete(self, task_id: str) -> None:
        del self._tasks[task_id]
        self._watermark = max(self._watermark, int(task_id))
        for other in sorted(self._tasks, key=int):
            task = self._tasks[other]
            if task_id in task["blocks"] or task_id in task["blockedBy"]:
                task["blocks"] = [b for b in task["blocks"] if b != task_id]
                task["blockedBy"] = [b for b in task["blockedBy"] if b != task_id]
                try:
                    self._write(other, _encoded(task))
                except ToolError:  # a file someone else wrote compactly, too big once indented: left as it is
                    log.warning("could not save task %s in %s: too big", other, self.folder)
        if self.folder is not None:
            try:
                (self.folder / f"{task_id}.json").unlink(missing_ok=True)
                _replace(self.folder / HIGH_WATERMARK, str(self._watermark).encode())
            except OSError as error:
                log.warning("could not delete task %s in %s: %s", task_id, self.folder, error.strerror or error)

    def _write(self, task_id: str, data: bytes) -> None:
        if self.folder is None:
            return
        try:
            _replace(self.folder / f"{task_id}.json", data)
        except OSError as error:  # the list goes on in memory; the run must not end over it
            log.warning("could not save task %s in %s: %s", task_id, self.folder, error.strerror or error)

    def _load(self, folder: Path) -> None:
        """Read the tasks an earlier run of this session left (none when the folder is missing): the
        lowest MAX_TASK_FILES ids; every task file's name counts towards the highest id given."""
        try:
            with os.scandir(folder) as scan:
                entries = {entry.name: entry.is_file(follow_symlinks=False) for entry in islice(scan, MAX_SCANNED)}
        except OSError:
            return
        if len(entries) == MAX_SCANNED:
            log.warning("read only the first %d entries of %s", MAX_SCANNED, folder)
        if entries.get(HIGH_WATERMARK):
            mark = _read(folder / HIGH_WATERMARK)
            if isinstance(mark, int) and not isinstance(mark, bool) and _ID.fullmatch(str(mark)):
                self._highest, self._watermark = max(self._highest, mark), mark
        ids = sorted((int(name[:-5]) for name in entries if name.endswith(".json") and _ID.fullmatch(name[:-5])))
        self._highest = max(self._highest, ids[-1] if ids else 0)
        if len(ids) > MAX_TASK_FILES:
            log.warning("left out %d tasks in %s past the %d kept", len(ids) - MAX_TASK_FILES, folder, MAX_TASK_FILES)
        for name in (f"{number}.json" for number in ids[:MAX_TASK_FILES]):
            task = _read(folder / name) if entries[name] else None
            if _is_task(task, name[:-5]):
                self._tasks[task["id"]] = _ordered(task)
            else:
                log.info("left out %s: not a task", folder / name)


def _encoded(task: dict[str, Any]) -> bytes:
    """A task's file; ToolError when it would be too big to be read back."""
    try:
        data = json.dumps(task, indent=2, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate (a JSON escape the model sent): written escaped
        data = json.dumps(task, indent=2).encode("ascii")
    if len(data) > TASK_FILE_BYTES:
        raise ToolError(f"Task #{task['id']} would be over the {TASK_FILE_BYTES // 1024} KB a task's file is read "
                        "back up to; keep its subject, description and metadata shorter.")
    return data


def _replace(path: Path, data: bytes) -> None:
    """Save `data` as the file `path` names in the task folder: a link there (symbolic, or a file
    with other names) is replaced, never written through to what else it names."""
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        info = None
    if info is not None and (stat.S_ISLNK(info.st_mode) or (stat.S_ISREG(info.st_mode) and info.st_nlink > 1)):
        os.unlink(path)
    save_file(path, data)


def _read(path: Path) -> Any:
    try:
        return load_json(read_bounded(path, TASK_FILE_BYTES), str(path))
    except (OSError, ValueError):
        return None


def _is_task(value: Any, task_id: str) -> bool:
    """Whether `value`, read from `<task_id>.json`, is a task as this list keeps them."""
    if not isinstance(value, dict) or value.get("id") != task_id or value.get("status") not in STATUSES:
        return False
    if not all(isinstance(value.get(key), str) for key in ("subject", "description")):
        return False
    if any(key in value and not isinstance(value[key], str) for key in ("activeForm", "owner")):
        return False
    if "metadata" in value and not isinstance(value["metadata"], dict):
        return False
    return all(isinstance(value.get(key), list) and all(isinstance(i, str) and _ID.fullmatch(i) for i in value[key])
               for key in ("blocks", "blockedBy"))


def _ordered(task: dict[str, Any]) -> dict[str, Any]:
    """`task` with Claude Code's keys only, in the order its files have them."""
    return {key: task[key] for key in _KEYS if key in task}


def _copy(task: dict[str, Any]) -> dict[str, Any]:
    copied = dict(task)
    copied["blocks"], copied["blockedBy"] = list(task["blocks"]), list(task["blockedBy"])
    if "metadata" in task:
        copied["metadata"] = dict(task["metadata"])
    return copied
