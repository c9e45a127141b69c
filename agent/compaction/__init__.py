"""Context compaction, as Claude Code 2.1.332 does it: when the provider refuses a request as too
long (or, with --autocompact / CLAUDE_CODE_AUTO_COMPACT_WINDOW, when the last reply's context
nears the window), the older part of the conversation is summarised by one request of the same
model, system prompt and tools, and the conversation goes on from that summary, its newest
messages kept verbatim and the files read before the summary attached again; `/compact` does the
same on demand.

`settings` says when it happens, `prompt` holds the summary prompt and the continuation message,
`compact` makes one summary and rebuilds the conversation, `guard` wraps each model request of
the loop (one function for the main conversation and every subagent, so subagents compact too).

May import: `conversation`, `errors`, `hooks`, `model`. The loop imports it.
"""
