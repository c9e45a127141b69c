"""`cassette check`: which files to check, the line printed for each, and the JUnit XML report.

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

    def line(self) -> str:
        head = f"{self.status:<5} {self.path}" + (f" ({self.note})" if self.note else "")
        return "\n".join(f"{head}: {part}" for part in self.message.split("\n")) if self.message else head


def find_cassettes(paths: list[str]) -> list[str]:
    """Every cassette in `paths`: a file is taken as one; a folder is searched (recursively, in
    name order) for YAML files with `interactions`, so other YAML files there are left alone."""
    found: list[str] = []
    for given in paths:
        path = Path(given)
        if path.is_file():
            found.append(given)
            continue
        if not path.is_dir():
            raise UsageError(f"cassette check: {given} is neither a folder nor a file")
        for candidate in sorted(p for pattern in ("*.yaml", "*.yml") for p in path.rglob(pattern)):
            try:  # a FIFO or device named x.yaml is never opened to wait on
                text = read_bounded(candidate, CASSETTE_FILE_BYTES).decode("utf-8", errors="replace")
            except FileTooLarge as error:  # listed, so that its replay says it is too large
                text = error.head.decode("utf-8", errors="replace")
            except OSError:
                continue
            if _CASSETTE.search(text):
                found.append(str(candidate))
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
