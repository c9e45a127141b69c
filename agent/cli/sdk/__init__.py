"""The Agent SDK's front end: `--input-format stream-json`, as `claude-agent-sdk` drives Claude Code.

User messages and control messages arrive on stdin as JSON lines; the conversation's lines, the
answers to the SDK's requests and the CLI's own requests (a permission question, a hook
callback, a message for an in-process MCP server) leave on stdout. `channel` reads and writes the
lines and matches requests with their answers, `control` answers the SDK's requests, `frames`
writes what the SDK parses (the stream-json lines, with the session-state frames it asks for),
and `driver` runs the session: one turn per user message until stdin closes, recorded and
replayed like any other run. It is another front end beside the interactive mode, feeding prompts
and answering approvals through the same interfaces the terminal uses.

May import: everything below `cli` (it is part of the top layer).
"""
