"""A cassette file as data: the YAML form we write, and reading and checking one without vcrpy.

On disk a cassette is vcrpy's YAML (`version: 1`, `interactions` of request and response) plus
keys of ours that vcrpy ignores:

- `setup`: what a replay needs: the agent's version, whether the replies came from the scripted
  model or a live provider, provider, wire format, model, the user's prompts, and the options and
  environment variables that shape requests;
- `agent` on each interaction: `main`, or the subagent that sent the request;
- `tool_runs`: every tool call that really ran, with its result (what --replay-tools answers from).

Beside them a user may write `match` (what a replay compares) and `expect` (what a replay must
still produce); every rewrite of the file keeps both (USER_SECTIONS).

JSON bodies are written as YAML structures, so every string is a YAML scalar and one with line
breaks (a system prompt, a file) is a block scalar (`|`) that reads as paragraphs and diffs line by
line. The workspace and home folders are written as `{{workspace}}` and `{{home}}`, and put back
when the file is read.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import yaml

from agent.conversation import valid_data
from agent.errors import UsageError
from agent.record.deltas import DELTA, rebuilt
from agent.record.shape import cassette_problem
from agent.workspace import CASSETTE_FILE_BYTES, InputLimitError, load_json, load_yaml, read_bounded

USER_SECTIONS = ("match", "expect")  # written by people, kept by every rewrite of a cassette
_TOP_LEVEL_KEY = re.compile(r"^([A-Za-z_][\w-]*):", re.MULTILINE)
WIRES = {"chat/completions": ("openrouter", "chat"), "v1/messages": ("anthropic", "messages")}


class Placeholders:
    """Folders written as `{{name}}` in a cassette: `hide` on the way out, `restore` on the way in."""

    def __init__(self, folders: dict[str, Path] | None = None):
        pairs = []
        for name, folder in (folders or {}).items():
            for form in {str(folder), str(folder.resolve())}:
                pairs.append((f"{{{{{name}}}}}", form))
        # the longest path first, so a workspace inside home becomes {{workspace}}, not {{home}}/...
        self.pairs = sorted(pairs, key=lambda pair: -len(pair[1]))

    def hide(self, value: Any) -> Any:
        return _map_strings(value, self._hide_text)

    def restore(self, value: Any) -> Any:
        return _map_strings(value, self._restore_text)

    def _hide_text(self, text: str) -> str:
        for placeholder, folder in self.pairs:
            text = text.replace(folder, placeholder)
            escaped = json.dumps(folder, ensure_ascii=False)[1:-1]  # inside a JSON text in a string
            if escaped != folder:
                text = text.replace(escaped, placeholder)
        return text

    def _restore_text(self, text: str) -> str:
        for placeholder, folder in self.pairs:
            text = text.replace(placeholder, folder)
        return text


def _map_strings(value: Any, change: Callable[[str], str]) -> Any:
    if isinstance(value, str):
        return change(value)
    if isinstance(value, list):
        return [_map_strings(item, change) for item in value]
    if isinstance(value, dict):
        return {key: _map_strings(item, change) for key, item in value.items()}
    return value


# --- writing ----------------------------------------------------------------------------------------

class _Dumper(getattr(yaml, "CSafeDumper", yaml.SafeDumper)):
    """Writes strings with line breaks as literal blocks (`|`) where YAML allows it."""


def _represent_str(dumper: yaml.SafeDumper, value: str) -> yaml.Node:
    style = "|" if "\n" in value else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


_Dumper.add_representer(str, _represent_str)


def to_yaml(data: dict) -> str:
    """`data` as our YAML: keys in their order, no folding of long lines (a diff shows the line).
    A lone surrogate (a reply's `"\\ud800"`) has no UTF-8 form: it is written as the agent read
    it, "?" (`conversation.valid_data`)."""
    try:
        return yaml.dump(data, Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=1_000_000)
    except UnicodeEncodeError:
        return yaml.dump(valid_data(data), Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=1_000_000)


def _top_level_blocks(text: str) -> dict[str, tuple[int, int]]:
    """Where each top-level key's block lies in a YAML text we wrote: from the comment lines just
    above its `key:` line to those of the next top-level key (`- ` items at column 0 belong to the
    block above them)."""
    blocks: dict[str, tuple[int, int]] = {}
    starts = [(_with_comments_above(text, m.start()), m.group(1)) for m in _TOP_LEVEL_KEY.finditer(text)]
    for (start, name), following in zip(starts, [*(at for at, _ in starts[1:]), len(text)]):
        blocks.setdefault(name, (start, following))
    return blocks


def _with_comments_above(text: str, start: int) -> int:
    """`start` (a line's beginning) moved up over the comment lines right above it."""
    while start > 0:
        previous = text.rfind("\n", 0, start - 1) + 1
        if not text.startswith("#", previous):
            break
        start = previous
    return start


def with_user_text(new_text: str, old_text: str) -> str:
    """`new_text` with the user's sections (`match`, `expect`) as `old_text` wrote them, comments
    and layout included, when both hold them and they mean the same: a rewrite of a cassette
    (an update, a re-recording) keeps what a person wrote word for word."""
    old_blocks, new_blocks = _top_level_blocks(old_text), _top_level_blocks(new_text)
    for name in reversed(USER_SECTIONS):  # from the end, so earlier positions stay valid
        if name not in old_blocks or name not in new_blocks:
            continue
        (old_start, old_end), (new_start, new_end) = old_blocks[name], new_blocks[name]
        old_block, new_block = old_text[old_start:old_end], new_text[new_start:new_end]
        try:
            same = load_yaml(old_block, "a section") == load_yaml(new_block, "a section")
        except (yaml.YAMLError, InputLimitError):
            same = False
        if same:
            new_text = new_text[:new_start] + old_block + new_text[new_end:]
            new_blocks = _top_level_blocks(new_text)
    return new_text


def body_to_file(body: Any) -> Any:
    """A request or response body as written: a JSON object or array as a YAML structure, anything
    else (an HTML error page) as its text."""
    if isinstance(body, bytes):
        try:
            body = body.decode("utf-8")
        except UnicodeDecodeError:
            return body
    if not isinstance(body, str):
        return body
    try:
        parsed = load_json(body, "the body")
    except ValueError:  # not JSON, or nested beyond the limit: kept as text
        return body
    return parsed if isinstance(parsed, (dict, list)) else body


def body_from_file(value: Any) -> Any:
    """The body as vcrpy replays it: JSON text for a structure, the text itself otherwise."""
    return json.dumps(value, ensure_ascii=False) if isinstance(value, (dict, list)) else value


# --- reading ----------------------------------------------------------------------------------------

@dataclass
class Interaction:
    """One recorded exchange, bodies parsed (JSON as Python values, other bodies as text)."""

    agent: str | None
    uri: str
    request: Any
    status: int
    response: Any
    method: str = "POST"
    headers: dict[str, Any] = field(default_factory=dict)  # the response's, as vcrpy keeps them
    reason: str = ""
    broken: str | None = None  # the reply broke off while it was read: why


@dataclass
class CassetteFile:
    """A cassette read from disk: its setup (recorded, or inferred from the interactions for a
    cassette written by another tool), its interactions and the tool runs it holds (None when it
    records none)."""

    path: str
    setup: dict[str, Any]
    interactions: list[Interaction]
    tool_runs: list[dict[str, Any]] | None
    inferred: bool = False
    # the sections a user writes beside `setup` and that every rewrite keeps: what a replay
    # compares (`match`, see agent.record.match) and what it must still produce (`expect`)
    match: Any = None
    expect: Any = None

    @property
    def base_url(self) -> str | None:
        """Where the recorded requests went, less the wire's path (`http://scripted-model/api/v1/`)."""
        uri = self.interactions[0].uri
        for path in WIRES:
            if uri.endswith(path):
                return uri[: -len(path)]
        return None


def parse(text: str, path: str) -> dict:
    """The YAML document of the cassette at `path`, checked to be one: a usage error naming the
    file otherwise (not YAML, beyond the YAML limits of `workspace.load_yaml`, or of the wrong
    shape: see `shape`)."""
    try:
        data = load_yaml(text, "its YAML")
    except InputLimitError as exc:
        raise UsageError(f"cassette {path} is refused: {exc}") from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" (line {mark.line + 1}, column {mark.column + 1})" if mark else ""
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise UsageError(f"cassette {path} is not valid YAML: {problem}{where}") from None
    problem = cassette_problem(data)
    if problem:
        raise UsageError(f"cassette {path} {problem}" if problem.startswith("has ") else f"cassette {path}: {problem}")
    return data


def read(path: str, placeholders: Placeholders | None = None) -> CassetteFile:
    """The cassette at `path`, with its folders put back by `placeholders` (left as `{{workspace}}`
    without). Anything that is not a readable cassette is a one-line usage error naming the file."""
    data = parse(read_text(path), path)
    restore = (placeholders or Placeholders()).restore
    interactions: list[Interaction] = []
    for item in data["interactions"]:  # one pass: a delta builds on a request already read
        request = item["request"]
        if DELTA in request:
            found = restore(request[DELTA])
            body = rebuilt(found, interactions[found["base"] - 1].request)
        else:
            body = body_to_file(restore(request.get("body")))
        interactions.append(Interaction(
            agent=item.get("agent"),
            uri=request["uri"],
            request=body,
            status=item["response"]["status"]["code"],
            response=body_to_file(restore((item["response"].get("body") or {}).get("string"))),
            method=request["method"],
            headers=item["response"].get("headers") or {},
            reason=item["response"]["status"]["message"],
            broken=item.get("broken") if isinstance(item.get("broken"), str) else None,
        ))
    setup = restore(data.get("setup"))
    inferred = setup is None
    if inferred:
        setup = _inferred_setup(interactions)
    runs = data.get("tool_runs")
    return CassetteFile(path, setup, interactions, restore(runs) if runs is not None else None, inferred,
                        data.get("match"), restore(data.get("expect")))


def read_text(path: str) -> str:
    """The text of the cassette file at `path`, read within bounds: a missing file, a folder, a
    device, FIFO or socket (never opened to wait on), a file over CASSETTE_FILE_BYTES or one that
    is not UTF-8 is a one-line usage error naming it."""
    file = Path(path)
    if file.is_dir():
        raise UsageError(f"cassette {path} is a folder, not a file")
    if not file.exists():
        raise UsageError(f"cassette not found: {path}")
    try:
        return read_bounded(file, CASSETTE_FILE_BYTES).decode("utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"cannot read cassette {path}: {getattr(exc, 'strerror', None) or exc}") from None


def _inferred_setup(interactions: list[Interaction]) -> dict[str, Any]:
    """What a cassette without a setup shows of it: provider and wire from the path, the model and
    the first user text from the first request."""
    first = interactions[0]
    setup: dict[str, Any] = {}
    for path, (provider, wire) in WIRES.items():
        if first.uri.endswith(path):
            setup.update(provider=provider, wire=wire)
    body = first.request if isinstance(first.request, dict) else {}
    if isinstance(body.get("model"), str):
        setup["model"] = body["model"]
    users = [m.get("content") for m in body.get("messages") or [] if isinstance(m, dict) and m.get("role") == "user"]
    if users and isinstance(users[0], str):
        setup["prompts"] = [users[0]]
    return setup
