"""A test MCP server with a hostile tool list: thousands of tools, a description of a hundred
thousand characters, an input schema nested 150 levels deep, schemas that are not JSON objects,
names too long or of letters no wire takes, two names that clean to the same one, and a property
typed as a list of types. The SDK's server checks what it sends, so the schemas that are not JSON
objects are put in as the answer leaves (`Sabotaged`). Every call answers `called <tool> with
<arguments>`. Run as `python hostile.py` (stdio only)."""

from __future__ import annotations

import anyio
from mcp.server.mcpserver import MCPServer
from mcp.server.stdio import stdio_server
from mcp.types import CallToolResult, TextContent, Tool

from serving import log_requests

FILLERS = 3000
OBJECT = {"type": "object", "properties": {}}


def _nested(levels: int) -> dict:
    schema = {"type": "object", "properties": {}}
    node = schema
    for _ in range(levels // 2):
        child = {"type": "object", "properties": {}}
        node["properties"] = {"inner": child}
        node = child
    return schema


class Hostile(MCPServer):
    async def list_tools(self) -> list[Tool]:
        special = [
            Tool(name="ok", description="A well-behaved tool.", input_schema=OBJECT),
            Tool(name="nullable", description="Takes a note that may be null.",
                 input_schema={"type": "object", "properties": {"note": {"type": ["string", "null"]}}}),
            Tool(name="wordy", description="W" * 100_000, input_schema=OBJECT),
            Tool(name="deep", description="Nested far too deep.", input_schema=_nested(150)),
            Tool(name="text_schema", description="Its schema is a string schema.", input_schema=OBJECT),
            Tool(name="list_props", description="Its properties are a list.", input_schema=OBJECT),
            Tool(name="look_up_" + "x" * 120, description="A name longer than a wire takes.", input_schema=OBJECT),
            Tool(name="wörter zählen", description="A name of letters no wire takes.", input_schema=OBJECT),
            Tool(name="a.b", description="The dotted one, listed first.", input_schema=OBJECT),
            Tool(name="a_b", description="The underscored one, listed second.", input_schema=OBJECT),
        ]
        return special + [Tool(name=f"filler_{n:04d}", input_schema=OBJECT) for n in range(FILLERS)]

    async def call_tool(self, name, arguments, context=None, **options):
        return CallToolResult(content=[TextContent(type="text", text=f"called {name} with {sorted(arguments.items())}")])


SABOTAGE = {"text_schema": {"type": "string"}, "list_props": {"type": "object", "properties": ["a", "b"]}}


class Sabotaged:
    """The server's write stream, giving the tools of SABOTAGE their broken schemas."""

    def __init__(self, stream):
        self._stream = stream

    async def send(self, item) -> None:
        result = getattr(item.message, "result", None)
        for tool in (result or {}).get("tools", []) if isinstance(result, dict) else []:
            tool["inputSchema"] = SABOTAGE.get(tool["name"], tool["inputSchema"])
        await self._stream.send(item)

    def __getattr__(self, name):
        return getattr(self._stream, name)

    async def __aenter__(self):
        await self._stream.__aenter__()
        return self

    async def __aexit__(self, *exc_info):
        return await self._stream.__aexit__(*exc_info)


async def main() -> None:
    app = Hostile("hostile", middleware=[log_requests])
    server = app._lowlevel_server  # as MCPServer.run_stdio_async runs it, with the stream wrapped
    async with stdio_server() as (read, write):
        await server.run(read, Sabotaged(write), server.create_initialization_options())


if __name__ == "__main__":
    anyio.run(main)
