"""A server's tool list, bounded and cleaned as it arrives, before the SDK reads it. A server is
untrusted input: a broken or hostile one may list thousands of tools, megabytes of description,
schemas nested past any parser's stack, or schemas that are not JSON objects at all. Each page of
`tools/list` is cleaned before the SDK validates it, so one malformed tool costs that tool, not
the whole server:
- a tool without a usable name, or whose input schema is not a JSON object (`type: object`,
  its properties objects), nests deeper than MAX_SCHEMA_DEPTH or is larger than
  MAX_SCHEMA_CHARS, is dropped;
- a description longer than MAX_DESCRIPTION is cut as Claude Code cuts it;
- only the fields the agent uses are kept (name, description, input and output schemas);
- past MAX_TOOLS tools, or MAX_LISTING_CHARS of definitions in all, the rest is dropped.
What was dropped is tallied for the one warning the server's start gives."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from agent.workspace import deeper_than

MAX_TOOLS = 500  # of one server: every tool is offered in every request
MAX_LISTING_CHARS = 4 * 1024 * 1024  # of one server's definitions, as JSON
MAX_NAME = 200
MAX_DESCRIPTION = 16_384  # where Claude Code 2.1.332 cuts a tool's description
CUT_MARK = "… [truncated]"  # what it puts after the cut
MAX_SCHEMA_DEPTH = 64  # well inside the JSON and YAML depth limits of requests and cassettes
MAX_SCHEMA_CHARS = 256 * 1024


@dataclass
class Tally:
    """What the cleaning of one server's listing kept and dropped, page after page."""

    kept: int = 0
    chars: int = 0
    unusable: dict[str, list[str]] = field(default_factory=dict)  # why -> the tools' names
    past_limit: int = 0

    def warning(self) -> str:
        """What was dropped, in a few words (empty when nothing was)."""
        parts = [f"{len(names)} tool{'' if len(names) == 1 else 's'} {why} ({_names(names)})"
                 for why, names in self.unusable.items()]
        if self.past_limit:
            parts.append(f"{self.past_limit} more past the first {self.kept} (at most {MAX_TOOLS} tools, "
                         f"{MAX_LISTING_CHARS // (1024 * 1024)} MB of definitions)")
        return "; ".join(parts)


def clean_listing(result: dict[str, Any], tally: Tally) -> dict[str, Any]:
    """One `tools/list` result (a page) with its unusable tools dropped and the rest bounded."""
    tools = result.get("tools")
    if not isinstance(tools, list):
        return result  # not a listing the SDK can read: it says so
    kept = []
    for tool in tools:
        why = _unusable(tool)
        if why:
            name = tool.get("name") if isinstance(tool, dict) and isinstance(tool.get("name"), str) else "?"
            tally.unusable.setdefault(why, []).append(name[:60])
            continue
        cleaned = _cleaned(tool)
        size = len(json.dumps(cleaned, ensure_ascii=False))
        if tally.kept >= MAX_TOOLS or tally.chars + size > MAX_LISTING_CHARS:
            tally.past_limit += 1
            continue
        tally.kept, tally.chars = tally.kept + 1, tally.chars + size
        kept.append(cleaned)
    return {**result, "tools": kept}


def _unusable(tool: Any) -> str:
    """Why a listed tool cannot be offered, or ''."""
    if not isinstance(tool, dict):
        return "that are not objects"
    name = tool.get("name")
    if not isinstance(name, str) or not name.strip() or len(name) > MAX_NAME or not name.isprintable():
        return "without a usable name"
    schema = tool.get("inputSchema")
    if not _object_schema(schema):
        return "whose input schema is not a JSON object"
    if deeper_than(schema, MAX_SCHEMA_DEPTH):
        return f"whose input schema nests deeper than {MAX_SCHEMA_DEPTH} levels"
    if len(json.dumps(schema, ensure_ascii=False)) > MAX_SCHEMA_CHARS:
        return f"whose input schema is over {MAX_SCHEMA_CHARS // 1024} KB"
    return ""


def _object_schema(schema: Any) -> bool:
    """A schema the SDK and the argument check can read: an object schema whose properties are
    objects and whose required names are text."""
    if not isinstance(schema, dict) or schema.get("type") != "object":
        return False
    properties, required = schema.get("properties", {}), schema.get("required", [])
    return (isinstance(properties, dict) and all(isinstance(value, dict) for value in properties.values())
            and isinstance(required, list) and all(isinstance(name, str) for name in required))


def _cleaned(tool: dict[str, Any]) -> dict[str, Any]:
    description = tool.get("description")
    description = description if isinstance(description, str) else None
    if description is not None and len(description) > MAX_DESCRIPTION:
        description = description[:MAX_DESCRIPTION] + CUT_MARK
    cleaned = {"name": tool["name"], "inputSchema": tool["inputSchema"]}
    if description is not None:
        cleaned["description"] = description
    output = tool.get("outputSchema")
    if isinstance(output, dict) and output.get("type") == "object" and not deeper_than(output, MAX_SCHEMA_DEPTH):
        cleaned["outputSchema"] = output  # the SDK checks structured results against it
    return cleaned


def _names(names: list[str]) -> str:
    shown = ", ".join(names[:5])
    return shown + (f" and {len(names) - 5} more" if len(names) > 5 else "")
