"""Subagents: the same loop with a fresh conversation.

`definitions` says what a subagent is (plus the built-ins and tool filtering); `discovery` finds
them in `.claude/agents/`, `~/.claude/agents/` and `--agents`; `runner` builds and runs one;
`fork` runs a `context: fork` skill as one; `tool` is the Agent tool; `worktrees` gives an
isolated agent a git worktree of its own, and `worktree_guard` holds it there.

May import: `skills` (forks, preloaded skills), `loop`, `tools`, `model` (model aliases, prices),
`permissions`, `prompt`, `conversation`, `errors`, `workspace`, `processes` (git, for worktrees).
The tools a subagent is offered come from the session, so the Agent tool never imports itself
round a cycle.
"""
