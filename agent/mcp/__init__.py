"""MCP servers, as Claude Code reaches them: their configuration (`config`: `.mcp.json`, the
user's servers, --mcp-config, an agent's `mcpServers`), a connection to each through the official
`mcp` SDK in one background event-loop thread behind a synchronous facade (`eventloop`,
`connection`), their tools offered as ordinary `Tool`s named `mcp__<server>__<tool>` (`tools`),
and the servers of a session started together and stopped at the end (`servers`). The SDK is
imported only when a server is configured: a run without MCP servers does not load it.

May import: `conversation`, `errors`, `permissions`, `processes`, `secrets`, `tools`, `workspace`.
"""
