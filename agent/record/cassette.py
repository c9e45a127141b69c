"""Record a run's model exchanges to a cassette (replaying one is `replaying`'s).

The file keeps vcrpy's YAML layout (`version`, `interactions` of request and response) in the
reviewable form of `cassette_file`: bodies as YAML structures, long strings as blocks, folders as
placeholders, the run's setup, each request's agent and the tool runs beside the interactions.
The first request of each agent is stored whole and each later one as what it adds to an earlier
one of the same agent (`deltas`), so the file grows linearly with the session. Secrets and
response headers other than content-type and the retry waits are never written, and the
scripted model's loopback address is written as `scripted-model`. The exchanges are captured by
our own adapter (`capture`), not vcrpy.
"""

from __future__ import annotations

import contextlib
import logging
import re
from collections import defaultdict, deque
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterator

import requests

from agent.errors import AgentError
from agent.record.capture import RECENT, SCRIPTED_SERVER, CaptureAdapter, Exchange, Exchanges, closest
from agent.record.cassette_file import USER_SECTIONS, Placeholders, body_to_file, to_yaml
from agent.record.deltas import DELTA, delta
from agent.secrets import redact_data
from agent.workspace import save_file

log = logging.getLogger("agent")
_LOOPBACK = re.compile(r"^(https?)://(127\.0\.0\.1|localhost|\[::1\])(:\d+)?")
SCRIPTED, LIVE = "scripted model", "live provider"
_SETUP_ORDER = ("agent_version", "recorded_against", "provider", "wire", "model", "prompts", "options", "environment")


@dataclass
class Recording:
    """What a recorded cassette holds: the run's `setup`, the exchanges (each with its agent, from
    `label`, asked as each request is sent), and the `tool_runs` (an
    agent.record.tool_runs.ToolRuns, or None)."""

    setup: dict[str, Any] | None = None
    label: Callable[[], str] | None = None
    tool_runs: Any = None
    exchanges: Exchanges = field(default_factory=Exchanges)
    _left_out: list[range] = field(default_factory=list)  # the exchanges of turns that did not finish
    _unfinished: tuple[int, int] | None = None
    unwritten: str | None = None  # the cassette could not be saved: what, and why (the run ends saying so)
    sections: dict[str, Any] = field(default_factory=dict)  # a re-recording keeps the user's `match` and `expect`

    def __post_init__(self) -> None:
        self.exchanges.label = self.label

    def mark(self) -> tuple[int, int]:
        """Where a turn of an interactive session starts: its exchanges and tool runs so far."""
        self._close_unfinished()
        return len(self.exchanges), len(self.tool_runs.entries) if self.tool_runs is not None else 0

    def leave_out_since(self, mark: tuple[int, int]) -> None:
        """Leave a turn that failed or was cancelled out of the cassette, from its `mark` on (a
        subagent still finishing its last request counts too), so a replay of the prompts that
        did finish matches it."""
        self._unfinished = mark
        if self.tool_runs is not None:
            del self.tool_runs.entries[mark[1]:]

    def kept(self, index: int) -> bool:
        """Whether exchange `index` goes into the cassette."""
        self._close_unfinished()
        return not any(index in left_out for left_out in self._left_out)

    def _close_unfinished(self) -> None:
        if self._unfinished is not None:
            self._left_out.append(range(self._unfinished[0], len(self.exchanges)))
            self._unfinished = None

    @property
    def recorded_against(self) -> str:
        items = self.exchanges.items
        return SCRIPTED if items and all(exchange.scripted for exchange in items) else LIVE


def cassette_text(recording: Recording, placeholders: Placeholders) -> str:
    """The cassette of `recording` as written: setup, the user's sections, the interactions (each
    agent's first request whole, later ones as deltas), the tool runs."""
    hide = placeholders.hide
    out: dict[str, Any] = {"version": 1}
    if recording.setup is not None:
        setup = dict(recording.setup)
        setup["recorded_against"] = recording.recorded_against
        out["setup"] = hide({key: setup.pop(key) for key in _SETUP_ORDER if key in setup} | setup)
    out.update({key: recording.sections[key] for key in USER_SECTIONS if key in recording.sections})
    scripted = recording.recorded_against == SCRIPTED
    # a reply nobody read to the end (the run was cut short), and a turn left out, are not written
    kept = [exchange for index, exchange in enumerate(recording.exchanges.items)
            if exchange.content is not None and recording.kept(index)]
    requests_written = encoded_requests([exchange.agent for exchange in kept], [exchange.body for exchange in kept], hide)
    interactions = [_interaction(exchange, request, hide, scripted) for exchange, request in zip(kept, requests_written)]
    out["interactions"] = interactions
    if recording.tool_runs is not None:
        out["tool_runs"] = hide(recording.tool_runs.entries)
    return to_yaml(redact_data(out))  # no secret, in any form, in what is written


def encoded_requests(agents: list[str | None], bodies: list[Any], hide: Callable[[Any], Any]) -> list[dict[str, Any]]:
    """How each request body is written, `body` whole or a `body_delta` on the earlier request of
    the same agent that shares the most of its conversation (`deltas`), folders hidden."""
    written: list[dict[str, Any]] = []
    recent: dict[str | None, deque] = defaultdict(lambda: deque(maxlen=RECENT))  # (number, body) per agent
    for number, (agent, body) in enumerate(zip(agents, bodies), 1):
        found = None
        if (closest_one := closest(list(recent[agent]), body, lambda item: item[1])) is not None:
            found = delta(body, closest_one[1], closest_one[0])
        written.append({DELTA: hide(found)} if found is not None else {"body": hide(body)})
        recent[agent].append((number, body))
    return written


def _interaction(exchange: Exchange, request_body: dict[str, Any], hide, scripted: bool) -> dict[str, Any]:
    uri = exchange.uri
    if scripted:
        uri = _LOOPBACK.sub(lambda m: f"{m.group(1)}://{SCRIPTED_SERVER}", uri, count=1)
    request: dict[str, Any] = {"method": exchange.method, "uri": uri, "headers": exchange.headers, **request_body}
    content = exchange.content.decode("utf-8", errors="replace")
    response: dict[str, Any] = {"status": {"code": exchange.status, "message": exchange.reason},
                                "headers": exchange.response_headers, "body": {"string": hide(body_to_file(content))}}
    entry: dict[str, Any] = {"agent": exchange.agent} if exchange.agent is not None else {}
    entry.update(request=request, response=response)
    if exchange.broken:
        entry["broken"] = exchange.broken  # the reply broke off here; a replay breaks it off too
    return entry


@contextlib.contextmanager
def record_to(path: str, http: requests.Session, folders: dict[str, Path],
              recording: Recording | None = None) -> Iterator[Recording]:
    """Run the body with the model exchanges recorded to the cassette at `path`, saved when the
    body ends (see `_saved_at`). `folders` name the paths written as placeholders; `recording` is
    what the cassette holds besides the exchanges, given to the body."""
    recording = recording or Recording()
    adapter = CaptureAdapter(recording.exchanges)
    http.mount("http://", adapter)
    http.mount("https://", adapter)
    with _saved_at(path, recording, Placeholders(folders)):
        yield recording


@contextlib.contextmanager
def _saved_at(path: str, recording: Recording, placeholders: Placeholders) -> Iterator[None]:
    """Save the recording at `path` when the run ends as the file tools save (`save_file`: in one
    step, keeping hard links; never over a device). A run that ended the way a user sees it (an
    answer, or an error of ours) is saved; one cut short (Ctrl-C, SIGTERM, a crash of ours) is
    not: an existing cassette is left as it was, and a first recording leaves none, since it could
    not replay. A cassette that cannot be written (a full disk) leaves the earlier one as it was
    and `recording.unwritten` says so; the run's answer is not lost to it."""
    finished = False
    try:
        yield
        finished = True
    except AgentError:
        finished = True  # the run failed the way a user sees it: the cassette records that too
        raise
    finally:
        existed = Path(path).exists()
        if not recording.exchanges.items:
            pass  # no exchange was recorded: nothing to save
        elif not finished:
            left = f"the cassette {path} is left as it was" if existed else f"no cassette is written to {path}"
            log.warning(f"the recording was cut short: {left}")
        else:
            try:
                save_file(Path(path), cassette_text(recording, placeholders).encode("utf-8", errors="backslashreplace"))
            except OSError as exc:
                kept_note = "; the earlier one is kept" if existed else ""
                recording.unwritten = f"the cassette {path} ({exc.strerror or exc}{kept_note})"
