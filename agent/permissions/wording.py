"""How refusals quote what they refuse: one line, quoted, cut to a length the model can read."""


def quoted(text: str, limit: int = 200) -> str:
    """`text` on one line, quoted, cut at `limit` characters (for reasons the model reads)."""
    flat = " ".join(text.split())
    return "'" + (flat if len(flat) <= limit else flat[:limit] + "...") + "'"
