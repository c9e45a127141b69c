"""`cassette check`: which files to check (and which of them a `--shard` takes), the line printed
for each, and the JUnit XML report.

Replaying each cassette is the CLI's business (it builds the run); this module holds the parts that
are only data.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path

from agent.errors import UsageError
from agent.workspace import CASSETTE_FILE_BYTES, FileTooLarge, read_bounded

_CASSETTE = re.compile(r"^interactions:", re.MULTILINE)
OK, DRIFT, ERROR, FAIL = "ok", "drift", "error", "fail"
UPDATED, RERECORD = "updated", "needs re-record"  # `check --update`: rewritten, or beyond what an update can fix
FAILURES = (DRIFT, FAIL, RERECORD)  # a JUnit failure; an error is anything else that went wrong
PASSED = (OK, UPDATED)


@dataclass
class Checked:
    """How one cassette replayed: `ok` (with a `note`: how a failed recording ended), `drift` (with
    the first difference), `fail` (the recording failed or an expectation was not met: one line of
    `message` each) or `error`."""

    path: str
    status: str
    message: str = ""
    seconds: float = 0.0
    note: str = ""
    drift: dict | None = None  # a drifted request: agent.errors.ReplayMismatch's `drift`, for a report

    def line(self) -> str:
        head = f"{self.status:<5} {self.path}" + (f" ({self.note})" if self.note else "")
        return "\n".join(f"{head}: {part}" for part in self.message.split("\n")) if self.message else head


def find_cassettes(paths: list[str]) -> list[str]:
    """Every cassette in `paths`: a file is taken as one; a folder is searched (recursively, in
    name order) for YAML files with `interactions`, so other YAML files there are left alone."""
    return [path for path, _ in _found(paths)]


def is_cassette(path: Path) -> bool:
    """Whether the file at `path` is one `cassette check` checks: YAML with `interactions`."""
    try:  # a FIFO or device named x.yaml is never opened to wait on
        text = read_bounded(path, CASSETTE_FILE_BYTES).decode("utf-8", errors="replace")
    except FileTooLarge as error:  # listed, so that its replay says it is too large
        text = error.head.decode("utf-8", errors="replace")
    except OSError:
        return False
    return bool(_CASSETTE.search(text))


def parse_shard(text: str) -> tuple[int, int]:
    """`I/N` (1 <= I <= N) as (I, N); anything else is a usage error."""
    index, _, count = text.partition("/")
    if not all(part.isascii() and part.isdigit() for part in (index, count)) or not 1 <= int(index) <= int(count):
        raise UsageError(f"cassette check: --shard takes I/N with 1 <= I <= N (e.g. 2/3), not {text!r}")
    return int(index), int(count)


def find_shard(paths: list[str], index: int, count: int) -> tuple[list[str], int]:
    """The cassettes of shard `index` of `count` (1-based) and how many were found in all. The
    found files are sorted by their path relative to the folder given (a file given alone: by its
    name) and dealt out in turn, so every checkout splits the same way, each file falls in exactly
    one shard, and shards differ in size by one at most. A shard keeps the order of `find_cassettes`."""
    found = _found(paths)
    dealt = sorted(range(len(found)), key=lambda position: found[position][1])
    taken = set(dealt[index - 1::count])
    return [path for position, (path, _) in enumerate(found) if position in taken], len(found)


def _found(paths: list[str]) -> list[tuple[str, str]]:
    """Each cassette in `paths` as it is shown, with its path relative to the folder given."""
    found: list[tuple[str, str]] = []
    for given in paths:
        path = Path(given)
        if path.is_file():
            found.append((given, path.name))
            continue
        if not path.is_dir():
            raise UsageError(f"cassette check: {given} is neither a folder nor a file")
        for candidate in sorted(p for pattern in ("*.yaml", "*.yml") for p in path.rglob(pattern)):
            if is_cassette(candidate):
                found.append((str(candidate), candidate.relative_to(path).as_posix()))
    if not found:
        raise UsageError(f"cassette check: no cassettes in {', '.join(paths)}")
    return found


def junit_xml(results: list[Checked]) -> str:
    """A JUnit report, one testcase per cassette: a drift or a failed expectation is a failure,
    anything else wrong an error."""
    suite = ET.Element("testsuite", {
        "name": "cassette check",
        "tests": str(len(results)),
        "failures": str(sum(r.status in FAILURES for r in results)),
        "errors": str(sum(r.status == ERROR for r in results)),
        "time": f"{sum(r.seconds for r in results):.3f}",
    })
    for result in results:
        path = Path(result.path)
        case = ET.SubElement(suite, "testcase", {
            "classname": ".".join(part for part in path.parent.parts if part != path.anchor) or ".",
            "name": path.name,
            "file": result.path,
            "time": f"{result.seconds:.3f}",
        })
        if result.status not in PASSED:
            kind = "failure" if result.status in FAILURES else "error"
            detail = ET.SubElement(case, kind, {"message": result.message.replace("\n", "; "), "type": result.status})
            detail.text = result.message
    root = ET.Element("testsuites")
    root.append(suite)
    ET.indent(root)
    return '<?xml version="1.0" encoding="utf-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"
