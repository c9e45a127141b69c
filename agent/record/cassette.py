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
from agent.record.drift import explain_mismatch, first_difference, json_body

SERIALIZER = "agent-yaml"
# what a replayed response needs: its type, and the provider's wait before a retry
_KEPT_RESPONSE_HEADERS = {"content-type", "retry-after", "retry-after-ms"}
_LOOPBACK = re.compile(r"^(https?)://(127\.0\.0\.1|localhost|\[::1\])(:\d+)?")


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
            cassette = exc.cassette
            recorded = [json_body(recorded.body) for recorded, _ in cassette.data]
            played = [cassette.play_counts[i] > 0 for i in range(len(cassette.data))]
            raise ReplayMismatch(explain_mismatch(recorded, played, request.body, self.cassette_path)) from None


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


def _match_json_body(live: Any, recorded: Any) -> None:
    found = first_difference(json_body(recorded.body), json_body(live.body))
    if found:
        raise AssertionError(f"body differs at {found[0]}")


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
