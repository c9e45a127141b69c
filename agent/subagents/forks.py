"""Forks: a subagent that continues its parent's own conversation instead of starting fresh.

A fork runs with its parent's exact system prompt, tools and model, and its first request is
the parent's latest request (the same system prompt, tools, model and messages) plus the
parent's reply holding the Agent call and one user turn: that call's result and the fork's
directive. Every request of the parent is therefore a byte prefix of the fork's first one, and the
prompt cache the parent wrote serves the fork. As Claude Code 2.1.332 does, the fork type is on
unless CLAUDE_CODE_FORK_SUBAGENT=0, a fork runs in the background when its caller's other agents
would (agent.subagents.background), may start other agents but never a fork, and can be continued
with SendMessage. (agent.subagents.fork runs forked skills, which start fresh.)
"""

from __future__ import annotations

FORK_TYPE = "fork"
STARTED = "Fork started: this fork is you. Your directive follows."
NESTED = ("A fork cannot start another fork. Do this part of your directive yourself, with your own tools, "
          "and report it.")
INSTRUCTIONS = """\
<fork-instructions>
You are a fork of the agent whose conversation is above. That conversation is what you inherited, as \
background: you are not that agent, and its open questions are not yours. Carry out the one directive \
below, then stop.
- Do the work yourself with your tools: a fork may not fork again.
- Report once, at the end, and stop: no questions back, no offers of next steps. Nobody will answer you.
- Keep to the directive: other forks may be doing the work next to it. Mention anything outside it in \
one sentence and move on.
- Begin your report with one line that restates the directive, so your parent sees at once whether \
you kept to it.
- Be brief and plain: the shortest report that fully answers.
- If you changed files or made commits, list the paths (and the commit hashes).
</fork-instructions>

Directive: {directive}"""
AGENT_INTRO = (  # the Agent tool's description opens so in fork mode
    "Launch a subagent to handle a task on its own: it does the work with its own tools and returns one "
    "final report. Several Agent calls in one reply run at the same time.\n"
    "subagent_type \"fork\" forks you: the fork continues from this very conversation, with your system "
    "prompt, tools and model (a `model` given is ignored), so it shares your prompt cache and needs no "
    "background. Its prompt is a directive: what to do, and what is in and out of its scope. Its tool calls "
    "and their output stay out of your context; only its report comes back. Fork when a task's intermediate "
    "output (searches, logs, files read) is not worth keeping here, or to try independent approaches side "
    "by side. A fork cannot fork again. Until a fork's report arrives you know nothing of what it found: "
    "never guess it.\n"
    "Every other type starts fresh, with only your prompt (none of this conversation): write that prompt "
    "as a complete brief. Available agent types:"
)
