"""A test MCP server whose tools give back every kind of result: several text blocks, structured
content alone, an image, an error result, a tool that raises, a result far over the output cap,
a call that never answers and one that kills the server. Run as `python results.py` (stdio; see
serving.py for the other transports and behaviours)."""

from __future__ import annotations

import base64
import os

import anyio
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.utilities.types import Image
from mcp.types import CallToolResult, TextContent

from serving import log_requests, serve

app = MCPServer("results", middleware=[log_requests])
# a 1x1 PNG
PIXEL = base64.b64decode("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==")


@app.tool()
def several() -> list:
    """Answers in two text blocks."""
    return [TextContent(type="text", text="first block"), TextContent(type="text", text="second block")]


@app.tool()
def structured() -> CallToolResult:
    """Answers with structured content and no text."""
    return CallToolResult(content=[], structured_content={"code": 518, "names": ["alpha", "beta"]})


@app.tool()
def picture() -> Image:
    """Answers with an image."""
    return Image(data=PIXEL, format="png")


@app.tool()
def refuse() -> CallToolResult:
    """Answers with an error result."""
    return CallToolResult(content=[TextContent(type="text", text="no record of that")], is_error=True)


@app.tool()
def broken() -> str:
    """Raises."""
    raise ValueError("the index is corrupt")


@app.tool()
def huge(lines: int) -> str:
    """Answers with `lines` numbered lines of 40 characters."""
    return "".join(f"line {number:06d} {'x' * 28}\n" for number in range(lines))


@app.tool()
async def hang() -> str:
    """Never answers (within a test's patience)."""
    await anyio.sleep(120)
    return "too late"


@app.tool()
def crash() -> str:
    """Kills the server in the middle of the call."""
    os._exit(3)


if __name__ == "__main__":
    serve(app)
