"""A small MCP server for tests, written with the official SDK: a knowledge base of codes.
Run as `python knowledge_base.py [stdio|streamable-http PORT|sse PORT]` (see serving.py, which
also lists the behaviours a test may ask of it); each call is appended to the file named by
KB_CALL_LOG, so a test can tell whether the server was reached."""

from __future__ import annotations

import os

from serving import log_requests, serve  # first: it notes the pid before the SDK's slow import

from mcp.server.mcpserver import MCPServer

app = MCPServer("kb", middleware=[log_requests])


def _log(line: str) -> None:
    path = os.environ.get("KB_CALL_LOG")
    if path:
        with open(path, "a") as log:
            log.write(line + "\n")


@app.tool()
def lookup(name: str) -> str:
    """Look up the code stored under a name."""
    _log(f"lookup {name}")
    return f"the code for {name} is {sum(map(ord, name)) % 1000}"


@app.tool()
def add(a: int, b: int) -> int:
    """Add two numbers."""
    _log(f"add {a} {b}")
    return a + b


if __name__ == "__main__":
    serve(app)
