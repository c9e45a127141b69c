"""How a recorded run ended, and what a replay of it must still produce.

A cassette's setup records each prompt's outcome (`outcomes: [{subtype, answer}]`, the result
subtypes of the JSON output) and, for a `-p` run, its `exit_code`. A replay that ends otherwise has
drifted (`outcome_difference`); `cassette check` reports a recording of a failed run
(`recorded_failure`). The `expect` section, written by a user beside `setup`, holds assertions
checked on every replay (`Expectations`):

    expect:
      answer_contains: [release notes, v2.1]   # text or list: each must be in the final answer
      answer_matches: 'v\\d+\\.\\d+'           # RE2, searched in the final answer
      exit_code: 0
      tools_called: [Read, {name: Bash, input_matches: 'git (log|tag)'}]
      files: [{path: NOTES.md, contains: '## v2.1'}]   # in the workspace, after a --replay run

Pure logic over values: the CLI gathers the answer, the exit code, the tool calls and the folder.
A cassette is untrusted, so its patterns are RE2 (linear time) and a file expectation reads only a
bounded regular file inside the workspace.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agent.errors import UsageError
from agent.record.drift import brief
from agent.workspace import read_bounded

SUBTYPES = ("success", "error_max_turns", "error_max_budget_usd", "error_during_execution")
FAILED = "error_during_execution"  # a run that ended in an error (HTTP 500 after retries, ...)
KEYS = ("answer_contains", "answer_matches", "exit_code", "tools_called", "files")
EXPECTED_FILE_BYTES = 8 * 1024 * 1024


def recorded_failure(outcomes: list[dict[str, Any]], exit_code: int | None) -> str | None:
    """Why a run counts as failed ("recorded run ended in error_max_turns", "recorded run exited
    1": an answer cut off, refused, ...), or None when it succeeded."""
    failed = next((each["subtype"] for each in outcomes if each.get("subtype") != "success"), None)
    if failed:
        return f"recorded run ended in {failed}"
    if exit_code:
        return f"recorded run exited {exit_code}"
    return None


def outcome_difference(recorded: list[dict[str, Any]], replayed: list[dict[str, Any]], path: str) -> str | None:
    """How a replay's outcomes differ from the recorded ones (another subtype or answer), or None."""
    for number, (was, now) in enumerate(zip(recorded, replayed), 1):
        if (was.get("subtype"), was.get("answer")) != (now["subtype"], now["answer"]):
            turn = f"turn {number} of " if len(recorded) > 1 else ""
            return (f"{turn}the run ended in {now['subtype']} with the answer {brief(now['answer'])}; the cassette "
                    f"{path} recorded {was.get('subtype')} with the answer {brief(was.get('answer'))} "
                    "(re-record the cassette if the change is intended)")
    if len(recorded) != len(replayed):
        return f"the run answered {len(replayed)} prompts; the cassette {path} recorded {len(recorded)} outcomes"
    return None


@dataclass(frozen=True)
class ToolExpectation:
    """A tool that must have been called, with arguments whose JSON text matches `input_matches`."""

    name: str
    input_matches: str | None = None

    def met_by(self, calls: list[tuple[str, Any]]) -> bool:
        pattern = _compiled(self.input_matches) if self.input_matches is not None else None
        return any(name == self.name and (pattern is None or pattern.search(_json_text(arguments)))
                   for name, arguments in calls)

    def __str__(self) -> str:
        return self.name + (f" with input matching {brief(self.input_matches)}" if self.input_matches else "")


@dataclass(frozen=True)
class FileExpectation:
    """A file of the workspace (a relative path inside it) that must hold `contains`."""

    path: str
    contains: str


@dataclass(frozen=True)
class Expectations:
    """A cassette's `expect` section, checked."""

    answer_contains: tuple[str, ...] = ()
    answer_matches: str | None = None
    exit_code: int | None = None
    tools_called: tuple[ToolExpectation, ...] = ()
    files: tuple[FileExpectation, ...] = ()

    @classmethod
    def from_section(cls, section: Any, path: str) -> "Expectations":
        """The `expect` section of the cassette at `path` (None: no expectations). A malformed one
        is a usage error naming the file and the key."""
        if section is None:
            return cls()
        if not isinstance(section, dict):
            raise UsageError(f"cassette {path}: `expect` must be a mapping of {', '.join(KEYS)}")
        unknown = [key for key in section if key not in KEYS]
        if unknown:
            raise UsageError(f"cassette {path}: `expect` has an unknown key {str(unknown[0])!r} "
                             f"(it takes {', '.join(KEYS)})")

        def bad(key: str, what: str) -> UsageError:
            return UsageError(f"cassette {path}: `expect.{key}` must be {what}")

        contains = section.get("answer_contains", [])
        contains = [contains] if isinstance(contains, str) else contains
        if not (isinstance(contains, list) and all(isinstance(text, str) for text in contains)):
            raise bad("answer_contains", "a text or a list of texts")
        matches = section.get("answer_matches")
        if matches is not None and not isinstance(matches, str):
            raise bad("answer_matches", "a regular expression (text)")
        _pattern(matches, path, "answer_matches")
        exit_code = section.get("exit_code")
        if exit_code is not None and not (isinstance(exit_code, int) and not isinstance(exit_code, bool)
                                          and 0 <= exit_code <= 255):
            raise bad("exit_code", "a number from 0 to 255")
        return cls(tuple(contains), matches, exit_code, _tools(section.get("tools_called", []), path, bad),
                   _files(section.get("files", []), bad))

    @property
    def checks_files(self) -> bool:
        return bool(self.files)

    def unmet(self, answer: str, exit_code: int, calls: list[tuple[str, Any]], workspace: Path | None) -> list[str]:
        """One line per expectation the run did not meet, with the expected and the actual value.
        `calls` are the run's tool calls (name, arguments); `workspace` is where its tools ran, or
        None when none ran (--replay-tools: the file expectations are not checked)."""
        found = [f"expected answer to contain {brief(text)}, got {brief(answer)}"
                 for text in self.answer_contains if text not in answer]
        if self.answer_matches is not None and not _compiled(self.answer_matches).search(answer):
            found.append(f"expected answer to match {brief(self.answer_matches)}, got {brief(answer)}")
        if self.exit_code is not None and exit_code != self.exit_code:
            found.append(f"expected exit code {self.exit_code}, got {exit_code}")
        for tool in self.tools_called:
            if not tool.met_by(calls):
                found.append(f"expected a call of {tool}, got {_calls_text(calls, tool.name)}")
        if workspace is not None:
            found.extend(problem for expected in self.files if (problem := _file_unmet(expected, workspace)))
        return found


def _tools(value: Any, path: str, bad) -> tuple[ToolExpectation, ...]:
    what = "a list of tool names or {name, input_matches} mappings"
    if not isinstance(value, list):
        raise bad("tools_called", what)
    tools = []
    for item in value:
        if isinstance(item, str):
            tools.append(ToolExpectation(item))
            continue
        if not (isinstance(item, dict) and isinstance(item.get("name"), str) and set(item) <= {"name", "input_matches"}
                and isinstance(item.get("input_matches", ""), str)):
            raise bad("tools_called", what)
        _pattern(item.get("input_matches"), path, "tools_called")
        tools.append(ToolExpectation(item["name"], item.get("input_matches")))
    return tuple(tools)


def _files(value: Any, bad) -> tuple[FileExpectation, ...]:
    what = "a list of {path, contains} mappings, each path relative and inside the workspace"
    if not isinstance(value, list):
        raise bad("files", what)
    files = []
    for item in value:
        if not (isinstance(item, dict) and set(item) == {"path", "contains"}
                and isinstance(item["path"], str) and isinstance(item["contains"], str)):
            raise bad("files", what)
        parts = Path(item["path"]).parts
        if not item["path"] or "\0" in item["path"] or Path(item["path"]).is_absolute() or ".." in parts \
                or item["path"].startswith("~"):
            raise bad("files", what)
        files.append(FileExpectation(item["path"], item["contains"]))
    return tuple(files)


def _file_unmet(expected: FileExpectation, workspace: Path) -> str | None:
    """Why `expected` is not met in `workspace`, or None. A symlink that leads out of the
    workspace is not followed: a cassette does not get to read the rest of the machine."""
    target = workspace / expected.path
    what = f"expected {expected.path} to contain {brief(expected.contains)}"
    real, root = os.path.realpath(target), os.path.realpath(workspace)
    if os.path.commonpath([real, root]) != root:
        return f"{what}, but it leads out of the workspace"
    try:
        text = read_bounded(real, EXPECTED_FILE_BYTES).decode("utf-8", errors="replace")
    except FileNotFoundError:
        return f"{what}, but there is no such file"
    except OSError as error:
        return f"{what}, but it cannot be read ({error.strerror or error})"
    return None if expected.contains in text else f"{what}, got {brief(text)}"


def _calls_text(calls: list[tuple[str, Any]], name: str) -> str:
    """The calls a failed tool expectation saw: those of that tool with their input, else every name."""
    same = [f"{name} {_json_text(arguments)}" for called, arguments in calls if called == name]
    if same:
        return brief("; ".join(same))
    return "calls of " + ", ".join(dict.fromkeys(called for called, _ in calls)) if calls else "no tool calls"


def _json_text(arguments: Any) -> str:
    return json.dumps(arguments, ensure_ascii=False)


def _pattern(pattern: str | None, path: str, key: str) -> None:
    """A usage error naming the file and the key when `pattern` is not a valid RE2 expression."""
    if pattern is None:
        return
    import re2

    try:
        _compiled(pattern)
    except re2.error as error:
        reason = error.args[0].decode(errors="replace") if error.args and isinstance(error.args[0], bytes) else str(error)
        raise UsageError(f"cassette {path}: `expect.{key}` is not a valid regular expression: {reason}") from None


def _compiled(pattern: str):
    """`pattern` compiled by RE2, whose matching time is linear in the text (a cassette's pattern
    cannot hang the run the way `(a+)+$` hangs Python's `re`)."""
    import re2

    options = re2.Options()
    options.log_errors = False
    return re2.compile(pattern, options=options)
