"""Record a run's model exchanges to a vcrpy cassette (replaying one is `replaying`'s).

The file is vcrpy's YAML in the reviewable form of `cassette_file` (bodies as YAML structures, long
strings as blocks, folders as placeholders, the run's setup, each request's agent and the tool
runs beside the interactions). Secrets and response headers other than content-type and the
retry waits are never written, and the scripted model's loopback address is written as
`scripted-model`. vcrpy is imported only here, and this module only when a run records or replays.
"""

from __future__ import annotations

import contextlib
import logging
import re
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterator

import requests
import vcr
from requests.adapters import HTTPAdapter
from vcr.persisters.filesystem import CassetteNotFoundError
from vcr.serialize import serialize

from agent.errors import AgentError
from agent.record.cassette_file import USER_SECTIONS, Placeholders, body_to_file, interactions_for_vcr, parse, to_yaml
from agent.secrets import redact_data
from agent.workspace import save_file

log = logging.getLogger("agent")
SERIALIZER = "agent-yaml"
# what a replayed response needs: its type, and the provider's wait before a retry
_KEPT_RESPONSE_HEADERS = {"content-type", "retry-after", "retry-after-ms"}
_LOOPBACK = re.compile(r"^(https?)://(127\.0\.0\.1|localhost|\[::1\])(:\d+)?")
# the scripted model (tests/scripted_model.py) names itself in the Server header of its replies
SCRIPTED_SERVER = "scripted-model"
SCRIPTED, LIVE = "scripted model", "live provider"


@dataclass
class Recording:
    """What a recorded cassette holds besides vcrpy's interactions: the run's `setup`, the agent of
    each exchange (from `label`, asked as each request is sent), and the `tool_runs`
    (an agent.record.tool_runs.ToolRuns, or None)."""

    setup: dict[str, Any] | None = None
    label: Callable[[], str] | None = None
    tool_runs: Any = None
    labels: list[str] = field(default_factory=list)
    servers: list[bool] = field(default_factory=list)  # whether each reply came from the scripted model
    _left_out: list[range] = field(default_factory=list)  # the exchanges of turns that did not finish
    _unfinished: tuple[int, int] | None = None
    unwritten: str | None = None  # the cassette could not be saved: what, and why (the run ends saying so)
    sections: dict[str, Any] = field(default_factory=dict)  # a re-recording keeps the user's `match` and `expect`

    def mark(self) -> tuple[int, int]:
        """Where a turn of an interactive session starts: its exchanges and tool runs so far."""
        self._close_unfinished()
        return len(self.labels), len(self.tool_runs.entries) if self.tool_runs is not None else 0

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
            self._left_out.append(range(self._unfinished[0], len(self.labels)))
            self._unfinished = None

    @property
    def recorded_against(self) -> str:
        return SCRIPTED if self.servers and all(self.servers) else LIVE


# vcrpy briefly un-patches http.client globally while it builds a connection, so a connection
# built at that moment by another thread (parallel subagents) would bypass the cassette. Under a
# cassette, one exchange at a time; the subagents' own work still runs concurrently.
_EXCHANGE_LOCK = threading.Lock()


class _CassetteAdapter(HTTPAdapter):
    """Sends one exchange at a time and notes which agent sent it."""

    def __init__(self, recording: Recording):
        super().__init__()
        self.recording = recording

    def send(self, request, **kwargs):
        with _EXCHANGE_LOCK:
            response = super().send(request, **kwargs)
            if self.recording.label is not None:
                self.recording.labels.append(self.recording.label())
            return response


class _Serializer:
    """Our YAML form for vcrpy, bound to one run's recording and folders."""

    def __init__(self, path: str, recording: Recording | None, placeholders: Placeholders):
        self.path = path
        self.recording = recording or Recording()
        self.placeholders = placeholders

    def serialize(self, data: dict) -> str:
        recording, hide = self.recording, self.placeholders.hide
        scripted = recording.recorded_against == SCRIPTED
        out: dict[str, Any] = {"version": data.get("version", 1)}
        if recording.setup is not None:
            setup = dict(recording.setup)
            setup["recorded_against"] = recording.recorded_against
            out["setup"] = hide({key: setup.pop(key) for key in _SETUP_ORDER if key in setup} | setup)
        out.update({key: recording.sections[key] for key in USER_SECTIONS if key in recording.sections})
        interactions = []
        for index, item in enumerate(data["interactions"]):
            if not recording.kept(index):
                continue
            request, response = item["request"], dict(item["response"])
            uri = request["uri"]
            if scripted:
                uri = _LOOPBACK.sub(lambda m: f"{m.group(1)}://{SCRIPTED_SERVER}", uri, count=1)
            body = dict(response.get("body") or {})
            body["string"] = hide(body_to_file(body.get("string")))
            response["body"] = body
            entry: dict[str, Any] = {}
            if index < len(recording.labels):
                entry["agent"] = recording.labels[index]
            entry["request"] = {"method": request["method"], "uri": uri, "headers": request.get("headers") or {},
                                "body": hide(body_to_file(request.get("body")))}
            entry["response"] = response
            interactions.append(entry)
        out["interactions"] = interactions
        if recording.tool_runs is not None:
            out["tool_runs"] = hide(recording.tool_runs.entries)
        out.update({key: value for key, value in data.items() if key not in out})
        return to_yaml(redact_data(out))  # no secret, in any form, in what is written

    def deserialize(self, text: str) -> dict:
        return interactions_for_vcr(parse(text, self.path), self.placeholders)


_SETUP_ORDER = ("agent_version", "recorded_against", "provider", "wire", "model", "prompts", "options", "environment")


def _vcr(path: str, placeholders: Placeholders, recording: Recording | None) -> vcr.VCR:
    def before_response(response):
        headers = response.get("headers") or {}
        if recording is not None:
            server = " ".join(value for key, values in headers.items() if key.lower() == "server" for value in values)
            recording.servers.append(server.startswith(SCRIPTED_SERVER))
        response["headers"] = {k: v for k, v in headers.items() if k.lower() in _KEPT_RESPONSE_HEADERS}
        return response

    recorder = vcr.VCR(
        serializer=SERIALIZER,
        match_on=["method", "path"],  # recording only: every exchange is new
        # secrets, and headers that vary with the machine or the path length
        filter_headers=["authorization", "x-api-key", "content-length", "user-agent", "accept-encoding", "accept", "connection"],
        decode_compressed_response=True,
        before_record_response=before_response,
    )
    recorder.register_serializer(SERIALIZER, _Serializer(path, recording, placeholders))
    return recorder


@contextlib.contextmanager
def record_to(path: str, http: requests.Session, folders: dict[str, Path],
              recording: Recording | None = None) -> Iterator[Recording]:
    """Run the body with the model exchanges recorded to the cassette at `path`, saved when the
    body ends (see `_saved_at`). `folders` name the paths written as placeholders; `recording` is
    what the cassette holds besides the exchanges, given to the body. Replaying is
    `agent.record.replaying`'s, without vcrpy."""
    recording = recording or Recording()
    adapter = _CassetteAdapter(recording)
    http.mount("http://", adapter)
    http.mount("https://", adapter)
    recorder, kept = _vcr(path, Placeholders(folders), recording), _Kept()
    recorder.register_persister(kept)
    with _saved_at(path, kept, recording), recorder.use_cassette(path, record_mode="all"):
        yield recording


class _Kept:
    """vcrpy's persister while recording: nothing is read (vcrpy's "all" mode would keep old
    interactions this run did not repeat) and the cassette's text is kept here, for `_saved_at`."""

    def __init__(self) -> None:
        self.text: str | None = None

    def load_cassette(self, cassette_path, serializer):
        raise CassetteNotFoundError()

    def save_cassette(self, cassette_path, cassette_dict, serializer) -> None:
        self.text = serialize(cassette_dict, serializer)


@contextlib.contextmanager
def _saved_at(path: str, kept: _Kept, recording: Recording) -> Iterator[None]:
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
        if kept.text is None:
            pass  # no exchange was recorded: nothing to save
        elif not finished:
            left = f"the cassette {path} is left as it was" if existed else f"no cassette is written to {path}"
            log.warning(f"the recording was cut short: {left}")
        else:
            try:
                save_file(Path(path), kept.text.encode("utf-8", errors="backslashreplace"))
            except OSError as exc:
                kept_note = "; the earlier one is kept" if existed else ""
                recording.unwritten = f"the cassette {path} ({exc.strerror or exc}{kept_note})"
