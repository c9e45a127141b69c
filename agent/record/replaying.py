"""Replaying a run from a cassette: each model request answered with its recorded reply.

Each agent (the main conversation, each subagent type) has its own queue of recorded exchanges,
in the order it sent them, so the exchange a request should match is known at once: matching costs
time in proportion to that request, not to the cassette, and parallel subagents match their own
exchanges whatever order their threads reach the network in. A request is compared with its
recorded twin under the match rules (`agent.record.match`); one that differs is drift, with the
first differing JSON path and both values.

Updating (`cassette check --update`), a request that differs at the same place of the same
agent's conversation is answered with the recorded reply anyway, and the request the agent sent
now is kept for `Updates.save`, which rewrites the cassette with it. A conversation that no longer
fits the recording (a request more or fewer) needs a re-recording instead.

vcrpy is not involved: this reads the cassette file of `cassette_file` directly. The model client
does not know about any of it: the replay mounts an adapter on its `requests.Session`.
"""

from __future__ import annotations

import contextlib
import io
import json
import threading
from collections import defaultdict, deque
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterator
from urllib.parse import urlsplit

import requests
from requests.adapters import HTTPAdapter
from urllib3 import HTTPResponse

from agent.errors import AgentError, ReplayMismatch
from agent.record.cassette_file import CassetteFile, Interaction, Placeholders, body_from_file
from agent.record.drift import brief, json_body, around_first_change
from agent.record.match import MatchRules

# How many of an agent's next recorded exchanges a request may match: parallel subagents of one
# type share a queue, and reach the network in any order (at most CLAUDE_CODE_MAX_CONCURRENT_SUBAGENTS).
_FRONTIER = 32
_ADVICE = "re-record the cassette, or accept the change with `cassette check --update`, if it is intended"


@dataclass
class Change:
    """A request an update replaced: its index in the cassette and the body the agent sent now."""

    index: int
    body: Any
    where: str


@dataclass
class Update:
    """What `cassette check --update` learns of one replay: the requests that changed, and
    whether the cassette was rewritten with them."""

    changes: list[Change] = field(default_factory=list)
    written: bool = False

    def summary(self) -> str:
        """What changed, as `check --update` reports it after the file's name."""
        first = min(self.changes, key=lambda change: change.index)
        count = len(self.changes)
        return f"{count} request{'s' if count != 1 else ''} changed (first at request {first.index + 1}, {first.where})"


@dataclass
class Replay:
    """One replay's state: the cassette, the rules it compares by, and (updating) the changes."""

    cassette: CassetteFile
    rules: MatchRules
    label: Callable[[], str]
    updating: bool = False
    explain: Callable[[Any, Any], str | None] | None = None  # a drift the workspace causes, in words
    changes: list[Change] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def __post_init__(self) -> None:
        self.played = [False] * len(self.cassette.interactions)
        self.labelled = any(item.agent is not None for item in self.cassette.interactions)
        self.queues: dict[str | None, deque[int]] = defaultdict(deque)
        for index, item in enumerate(self.cassette.interactions):
            self.queues[item.agent if self.labelled else None].append(index)

    @property
    def path(self) -> str:
        return self.cassette.path

    def answer(self, method: str, url: str, body: Any) -> Interaction:
        """The recorded exchange that answers this request, marked played; drift otherwise."""
        agent = self.label() if self.labelled else None
        with self._lock:
            queue = self.queues.get(agent) or deque()
            candidates = [index for index in list(_first(queue, _FRONTIER)) if not self.played[index]]
            if not candidates:
                raise ReplayMismatch(self._more(agent))
            for index in candidates:  # the usual case, at the speed of encoding JSON: the very bytes
                if self.rules.empty and self._same_place(index, method, url) and self._same_text(index, body):
                    return self._play(queue, index)
            sent = json_body(body)
            for index in candidates:
                if self._fits(index, method, url, sent, agent):
                    return self._play(queue, index)
            first = candidates[0]
            if self.updating and self._same_place(first, method, url):
                where = self.rules.difference(self.cassette.interactions[first].request, sent, agent)
                self.changes.append(Change(first, sent, where[0] if where else "$"))
                return self._play(queue, first)
            recorded = self.cassette.interactions[first].request
            where = self.rules.difference(recorded, sent, agent)
            raise ReplayMismatch(self._differs(first, method, url, sent, agent), {
                "request": first + 1, "agent": agent, "where": where[0] if where else None,
                "recorded": recorded, "sent": sent})

    def unplayed(self) -> list[int]:
        return [index for index, played in enumerate(self.played) if not played]

    def ended_early(self) -> str:
        """The drift of a run that sent fewer requests than the cassette holds."""
        left = self.unplayed()
        first = self.cassette.interactions[left[0]]
        who = f" (the next was request {left[0] + 1}, of {_who(first.agent)})" if self.labelled else ""
        return (f"the run ended after {len(self.played) - len(left)} of the {len(self.played)} requests the cassette "
                f"{self.path} holds{who} ({_ADVICE})")

    def _play(self, queue: deque[int], index: int) -> Interaction:
        self.played[index] = True
        while queue and self.played[queue[0]]:
            queue.popleft()
        return self.cassette.interactions[index]

    def _same_place(self, index: int, method: str, url: str) -> bool:
        recorded = self.cassette.interactions[index]
        return recorded.method.upper() == method.upper() and urlsplit(recorded.uri).path == urlsplit(url).path

    def _same_text(self, index: int, body: Any) -> bool:
        """Whether the request body sent is the recorded one's JSON text, as the client encodes it."""
        recorded = self.cassette.interactions[index].request
        if not isinstance(recorded, (dict, list)):
            return False
        sent = body.encode("utf-8") if isinstance(body, str) else body
        try:
            return json.dumps(recorded, allow_nan=False).encode("utf-8") == sent
        except ValueError:
            return False

    def _fits(self, index: int, method: str, url: str, sent: Any, agent: str | None) -> bool:
        return self._same_place(index, method, url) and self.rules.difference(
            self.cassette.interactions[index].request, sent, agent) is None

    def _more(self, agent: str | None) -> str:
        if self.labelled:
            recorded = sum(1 for item in self.cassette.interactions if item.agent == agent)
            return (f"{_who(agent)} sent more requests than the cassette {self.path} holds for it ({recorded}); "
                    "the conversation no longer fits the recording: re-record it")
        return f"the run sent more requests than the cassette {self.path} holds ({len(self.played)}); re-record it"

    def _differs(self, index: int, method: str, url: str, sent: Any, agent: str | None) -> str:
        recorded = self.cassette.interactions[index]
        if not self._same_place(index, method, url):
            return (f"request {index + 1} does not match the cassette {self.path}: recorded {recorded.method} "
                    f"{urlsplit(recorded.uri).path}, sent {method} {urlsplit(url).path}")
        where, was, now = self.rules.difference(recorded.request, sent, agent) or ("$", None, None)
        if isinstance(was, str) and isinstance(now, str):
            was, now = around_first_change(was, now)
        cause = self.explain(recorded.request, sent) if self.explain else None
        lead = f"{cause}: " if cause else ""
        return (f"{lead}request {index + 1} differs from the cassette {self.path} at {where}: recorded {brief(was)}, "
                f"sent {brief(now)}{self.rules.hint(recorded.request, sent, agent)} ({_ADVICE})")


def _first(queue: deque[int], count: int) -> Iterator[int]:
    for number, index in enumerate(queue):
        if number >= count:
            return
        yield index


def _who(agent: str | None) -> str:
    return "the main conversation" if agent in (None, "main") else f"the subagent {agent}"


class _BrokenOff(io.BytesIO):
    """A recorded reply that broke off while it was read: its bytes, then the connection fails, as
    it did when it was recorded (so the client retries as it did)."""

    def __init__(self, data: bytes, why: str):
        super().__init__(data)
        self.why = why

    def read(self, size: int | None = -1) -> bytes:
        data = super().read(size)
        if not data:
            raise ConnectionResetError(f"the recorded reply broke off here ({self.why})")
        return data

    def read1(self, size: int = -1) -> bytes:
        return self.read(size)


class _ReplayAdapter(HTTPAdapter):
    """Answers every request the client sends from the replay, without the network."""

    def __init__(self, replay: Replay):
        super().__init__()
        self.replay = replay

    def send(self, request: requests.PreparedRequest, **kwargs) -> requests.Response:
        recorded = self.replay.answer(request.method or "POST", request.url or "", request.body)
        raw = recorded.response
        data = (raw if isinstance(raw, str) else body_from_file(raw) or "").encode("utf-8", errors="surrogatepass")
        headers = {name: value if isinstance(value, str) else ", ".join(value) for name, value in recorded.headers.items()}
        body = _BrokenOff(data, recorded.broken) if recorded.broken else io.BytesIO(data)
        response = HTTPResponse(body=body, headers=headers, status=recorded.status, reason=recorded.reason,
                                preload_content=False, decode_content=False)
        return self.build_response(request, response)


@contextlib.contextmanager
def replaying(cassette: CassetteFile, http: requests.Session, label: Callable[[], str], rules: MatchRules | None = None,
              update: Update | None = None, explain: Callable[[Any, Any], str | None] | None = None,
              folders: dict[str, Path] | None = None) -> Iterator[Replay]:
    """Run the body with every model request answered from `cassette` (read with its folders
    put back). A replay that ends before it has sent every recorded request has drifted too.
    With an `update`, a changed request is answered at its place, and when the run has replayed
    every exchange the cassette is rewritten with the requests sent now (`folders` are written
    as placeholders again)."""
    replay = Replay(cassette, rules or MatchRules(), label, update is not None, explain)
    adapter = _ReplayAdapter(replay)
    http.mount("http://", adapter)
    http.mount("https://", adapter)
    try:
        yield replay
    except ReplayMismatch:
        raise
    except AgentError as exc:
        if replay.unplayed():
            raise ReplayMismatch(f"{replay.ended_early()}: {exc}") from exc
        raise
    if replay.unplayed():
        raise ReplayMismatch(replay.ended_early())
    if update is not None and replay.changes:
        update.changes = list(replay.changes)
        _rewrite(cassette.path, update.changes, [item.request for item in cassette.interactions], Placeholders(folders))
        update.written = True


def _rewrite(path: str, changes: list[Change], bodies: list, placeholders: Placeholders) -> None:
    """Rewrite the cassette at `path` with the changed requests, in one step (keeping what the
    path is, as the file tools save); the file is read again as it is on disk, so everything
    else in it stays exactly as written."""
    from agent.record.cassette_file import parse, read_text, with_user_text
    from agent.workspace import save_file

    old_text = read_text(path)
    text = with_user_text(updated_text(parse(old_text, path), changes, bodies, placeholders), old_text)
    save_file(Path(path), text.encode("utf-8", errors="backslashreplace"))


def updated_text(data: dict, changes: list[Change], bodies: list, placeholders: Placeholders) -> str:
    """The cassette `data` (as parsed from its file) with the changed requests' bodies replaced
    by what the agent sends now, written in our YAML form: replies, tool runs, setup and the
    user's sections are kept as they were. `bodies` are the file's requests as read (folders put
    back); every request is stored again as the recorder stores it (whole, or a delta on an
    earlier one), so a later request that builds on a changed one still reads as it was sent."""
    from agent.record.cassette import encoded_requests
    from agent.record.cassette_file import to_yaml
    from agent.secrets import redact_data

    new = list(bodies)
    for change in changes:
        new[change.index] = change.body
    agents = [item.get("agent") for item in data["interactions"]]
    interactions = []
    for item, encoded in zip(data["interactions"], encoded_requests(agents, new, placeholders.hide)):
        request = {key: value for key, value in item["request"].items() if key not in ("body", "body_delta")}
        interactions.append({**item, "request": {**request, **encoded}})
    return to_yaml(redact_data({**data, "interactions": interactions}))
