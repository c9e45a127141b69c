"""Hooks, as Claude Code runs them: shell commands the user configured (in settings files, or in an
agent's or a skill's frontmatter) that run at moments of a session (before and after a tool call,
when a prompt is submitted, when a conversation stops, when a session starts or ends, ...), read
the moment's JSON on stdin, and answer with an exit code and output that can block a call, add
context for the model or change a tool's input.

`config` reads hook configuration, `sources` gathers it from the settings files, `matching` says
which groups a moment matches, `running` runs one command, `answers` reads what it said, `engine`
fires an event (in parallel, recorded or replayed through the session's `hook_runs`), and `events`
holds one function per moment for the places that own it (the tool executor, the loop, the main
conversation, the subagent runner, the command line).

May import: `conversation`, `errors`, `permissions`, `processes`, `workspace`. It never imports the
layers that fire its events, nor `record`: a recording or a replay is handed in as `hook_runs`.
"""
