"""Record a run's model exchanges to a vcrpy cassette, or replay a run offline from one.

The cassette format is vcrpy's YAML, made reviewable: JSON bodies are pretty-printed, the
workspace and home folders are written as `{{workspace}}` and `{{home}}` (and put back on load, so
a cassette replays from any folder), secrets and response headers other than content-type are
never written, and a loopback host (the scripted model) is written as `scripted-model`.
vcrpy is imported only here, and this module only when --record or --replay is used.
"""

from __future__ import annotations

import contextlib
import json
import re
import threading
from pathlib import Path
from typing import Any, Iterator

import requests
import vcr
import yaml
from requests.adapters import HTTPAdapter
from vcr.errors import CannotOverwriteExistingCassetteException

from agent.errors import ReplayMismatch, UsageError

SERIALIZER = "agent-yaml"
# what a replayed response needs: its type, and the provider's wait before a retry
_KEPT_RESPONSE_HEADERS = {"content-type", "retry-after", "retry-after-ms"}
_LOOPBACK = re.compile(r"^(https?)://(127\.0\.0\.1|localhost|\[::1\])(:\d+)?")


def first_difference(recorded: Any, sent: Any, path: str = "$") -> tuple[str, Any, Any] | None:
    """The first place where two JSON values differ, as (path, recorded value, sent value)."""
    if isinstance(recorded, dict) and isinstance(sent, dict):
        for key in list(recorded) + [k for k in sent if k not in recorded]:
            if key not in recorded or key not in sent:
                return f"{path}.{key}", recorded.get(key, "<absent>"), sent.get(key, "<absent>")
            found = first_difference(recorded[key], sent[key], f"{path}.{key}")
            if found:
                return found
        return None
    if isinstance(recorded, list) and isinstance(sent, list):
        for index, (a, b) in enumerate(zip(recorded, sent)):
            found = first_difference(a, b, f"{path}[{index}]")
            if found:
                return found
        if len(recorded) != len(sent):
            return f"{path}.length", len(recorded), len(sent)
        return None
    # JSON true is not 1: compare types too (ints and floats stay comparable)
    same_kind = type(recorded) is type(sent) or (
        isinstance(recorded, (int, float)) and isinstance(sent, (int, float))
        and not isinstance(recorded, bool) and not isinstance(sent, bool)
    )
    return None if same_kind and recorded == sent else (path, recorded, sent)


def _json_body(request: Any) -> Any:
    body = request.body
    if isinstance(body, bytes):
        body = body.decode("utf-8", errors="replace")
    try:
        return json.loads(body) if body else None
    except ValueError:
        return body


def _match_json_body(live: Any, recorded: Any) -> None:
    found = first_difference(_json_body(recorded), _json_body(live))
    if found:
        raise AssertionError(f"body differs at {found[0]}")


def _brief(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False) if not isinstance(value, str) else repr(value)
    return text if len(text) <= 300 else text[:300] + "..."


def explain_mismatch(cassette: Any, live_body: Any, path: str) -> str:
    """A readable account of why a live request has no recorded twin: the first unplayed recorded
    request and the first path where the two JSON payloads differ."""
    unplayed = [i for i in range(len(cassette.data)) if cassette.play_counts[i] == 0]
    if not unplayed:
        return f"the run sent more requests than the cassette {path} holds ({len(cassette.data)}); re-record it"
    index = unplayed[0]
    sent = live_body
    if isinstance(sent, bytes):
        sent = sent.decode("utf-8", errors="replace")
    try:
        sent = json.loads(sent) if sent else None
    except ValueError:
        pass
    recorded = _json_body(cassette.data[index][0])
    found = first_difference(recorded, sent)
    if not found:
        return f"request {index + 1} does not match the cassette {path} (same body, other method or path)"
    where, was, now = found
    if isinstance(was, str) and isinstance(now, str):
        was, now = _around_first_change(was, now)
    return (
        f"request {index + 1} differs from the cassette {path} at {where}: "
        f"recorded {_brief(was)}, sent {_brief(now)} (re-record the cassette if the change is intended)"
    )


def _around_first_change(a: str, b: str, before: int = 40, after: int = 80) -> tuple[str, str]:
    """Excerpts of two strings around the first character where they differ."""
    index = next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
    start = max(0, index - before)
    lead = "..." if start else ""

    def cut(text: str) -> str:
        tail = "..." if len(text) > index + after else ""
        return lead + text[start : index + after] + tail

    return cut(a), cut(b)


# vcrpy briefly un-patches http.client globally while it builds a connection, so a connection
# built at that moment by another thread (parallel subagents) would bypass the cassette. Under a
# cassette, one exchange at a time; the subagents' own work still runs concurrently.
_EXCHANGE_LOCK = threading.Lock()


class _CassetteAdapter(HTTPAdapter):
    """Sends one exchange at a time, and turns vcrpy's "no recorded response" into our
    ReplayMismatch with a payload diff."""

    def __init__(self, cassette_path: str):
        super().__init__()
        self.cassette_path = cassette_path

    def send(self, request, **kwargs):
        try:
            with _EXCHANGE_LOCK:
                return super().send(request, **kwargs)
        except CannotOverwriteExistingCassetteException as exc:
            raise ReplayMismatch(explain_mismatch(exc.cassette, request.body, self.cassette_path)) from None


def _placeholders(folders: dict[str, Path]) -> list[tuple[str, str]]:
    pairs = []
    for name, folder in folders.items():
        for form in {str(folder), str(folder.resolve())}:
            pairs.append((f"{{{{{name}}}}}", form))
    # the longest path first, so a workspace inside home becomes {{workspace}}, not {{home}}/...
    return sorted(pairs, key=lambda pair: -len(pair[1]))


def _replace(text: str, pairs: list[tuple[str, str]], restore: bool) -> str:
    for placeholder, value in pairs:
        escaped = json.dumps(value)[1:-1]
        if restore:
            text = text.replace(placeholder, escaped)
        else:
            text = text.replace(escaped, placeholder).replace(value, placeholder)
    return text


def _pretty(body: Any) -> Any:
    if isinstance(body, bytes):
        try:
            body = body.decode("utf-8")
        except UnicodeDecodeError:
            return body
    if not isinstance(body, str):
        return body
    try:
        return json.dumps(json.loads(body), indent=2, ensure_ascii=False)
    except ValueError:
        return body


class _LiteralDumper(yaml.SafeDumper):
    """Writes multi-line strings as YAML literal blocks, so a cassette diff reads like a JSON diff."""


def _represent_str(dumper: yaml.SafeDumper, value: str) -> yaml.Node:
    if "\n" in value:
        return dumper.represent_scalar("tag:yaml.org,2002:str", value, style="|")
    return dumper.represent_scalar("tag:yaml.org,2002:str", value)


_LiteralDumper.add_representer(str, _represent_str)


class _Serializer:
    @staticmethod
    def serialize(data: dict) -> str:
        return yaml.dump(data, Dumper=_LiteralDumper, sort_keys=False, allow_unicode=True, width=100)

    @staticmethod
    def deserialize(text: str) -> dict:
        return yaml.safe_load(text)


def _vcr(folders: dict[str, Path]) -> vcr.VCR:
    pairs = _placeholders(folders)

    def before_request(request):
        match = _LOOPBACK.match(request.uri)
        if match:
            request.uri = f"{match.group(1)}://scripted-model" + request.uri[match.end():]
        return request

    def before_response(response):
        headers = response.get("headers") or {}
        response["headers"] = {k: v for k, v in headers.items() if k.lower() in _KEPT_RESPONSE_HEADERS}
        return response

    def before_save(request, response):
        request.body = _replace(_pretty(request.body), pairs, restore=False)
        body = response.get("body") or {}
        body["string"] = _replace(_pretty(body.get("string")), pairs, restore=False)
        return request, response

    def after_load(request, response):
        if isinstance(request.body, (str, bytes)):
            text = request.body.decode() if isinstance(request.body, bytes) else request.body
            request.body = _replace(text, pairs, restore=True).encode()
        body = response.get("body") or {}
        if isinstance(body.get("string"), (str, bytes)):
            text = body["string"].decode() if isinstance(body["string"], bytes) else body["string"]
            body["string"] = _replace(text, pairs, restore=True).encode()
        return request, response

    recorder = vcr.VCR(
        serializer=SERIALIZER,
        match_on=["method", "path", "json_body"],
        # secrets, and headers that vary with the machine or the path length
        filter_headers=["authorization", "x-api-key", "content-length", "user-agent", "accept-encoding", "accept", "connection"],
        decode_compressed_response=True,
        before_record_request=before_request,
        before_record_response=before_response,
        before_save_interaction=before_save,
        after_load_interaction=after_load,
    )
    recorder.register_serializer(SERIALIZER, _Serializer)
    recorder.register_matcher("json_body", _match_json_body)
    return recorder


@contextlib.contextmanager
def cassette(path: str, mode: str, http: requests.Session, folders: dict[str, Path]) -> Iterator[None]:
    """Run the body with the model exchanges recorded to (mode "record") or replayed from
    (mode "replay") the cassette at `path`. `folders` name the paths written as placeholders."""
    if mode == "replay" and not Path(path).is_file():
        raise UsageError(f"cassette not found: {path}")
    if mode == "record":
        # vcrpy's "all" mode would keep old interactions that this run did not repeat
        Path(path).unlink(missing_ok=True)
        Path(path).parent.mkdir(parents=True, exist_ok=True)
    adapter = _CassetteAdapter(path)
    http.mount("http://", adapter)
    http.mount("https://", adapter)
    record_mode = "all" if mode == "record" else "none"
    with _vcr(folders).use_cassette(path, record_mode=record_mode):
        yield
