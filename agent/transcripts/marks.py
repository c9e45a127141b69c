"""The compaction marks of a transcript, as Claude Code 2.1.332 writes them: a `system`
`compact_boundary` line starts the conversation anew after a compaction (what comes after it is
the conversation read back), and Claude Code's own boundary names the messages it kept from
before it (`compactMetadata.preservedMessages`), which go back after its summary."""

from __future__ import annotations

import time
from typing import Any


def boundary_entry(entry_uuid: str, parent: str | None, trigger: str, metadata: dict[str, Any]) -> dict[str, Any]:
    """A compact_boundary line (`trigger`: manual or auto; `metadata`: preTokens, postTokens,
    durationMs): no parentUuid, so a new chain starts, and the line before it as logicalParentUuid."""
    return {"parentUuid": None, "logicalParentUuid": parent, "type": "system", "subtype": "compact_boundary",
            "content": "Conversation compacted", "isMeta": False,
            "timestamp": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "uuid": entry_uuid, "level": "info",
            "compactMetadata": {"trigger": trigger, **metadata}}


def is_boundary(entry: Any) -> bool:
    """Whether a transcript line is a compact_boundary."""
    return isinstance(entry, dict) and entry.get("type") == "system" and entry.get("subtype") == "compact_boundary"


def kept_by(boundary: dict[str, Any], before: dict[str, dict[str, Any]]) -> tuple[str, list[dict[str, Any]]] | None:
    """The summary's uuid and the lines (of `before`, by uuid) a Claude Code compact_boundary keeps
    from before it, in its order, each once; None for ours, which writes the kept messages again after the summary."""
    metadata = boundary.get("compactMetadata")
    kept = metadata.get("preservedMessages") if isinstance(metadata, dict) else None
    if not isinstance(kept, dict) or not isinstance(kept.get("anchorUuid"), str) or not isinstance(kept.get("uuids"), list):
        return None
    named = dict.fromkeys(u for u in kept["uuids"][:10_000] if isinstance(u, str) and u in before)  # each once
    found = [before[u] for u in named]
    return (kept["anchorUuid"], found) if found else None
