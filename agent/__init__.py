"""agent: a record-and-replay testable re-implementation of the Claude Code terminal agent.

How one run flows, and the direction every import runs (top to bottom, never back up):

    argv ─► cli ─► run ─► session ─────────────► loop ─► tools ─► model ─► HTTP
             │      │       │  (tools for each     ▲       │         │   (OpenRouter, Anthropic,
             │      │       │   agent, fork hook)  │       │         │    or a cassette)
             │      │       ▼                      │       ▼         ▼
             │      └──► subagents ──► skills ─────┘   permissions  record (--record / --replay)
             │
             └─ prints the answer (or JSON); the only module that writes to stdout

    cli        flags → a session and a run; output and exit codes
    run        the main conversation for a prompt (slash commands expanded)
    session    what one run shares; the tool set each agent is offered
    subagents  definitions, running one, forks, the Agent tool
    skills     discovery, catalog, rendering, slash commands, the Skill tool
    loop       send, run the tool calls, repeat (the same function for every agent)
    tools      the built-in tools and the one place calls are executed
    model      the client, providers, wire formats, retries, prices
    record     cassettes and drift reports
    bottom     conversation, errors, workspace, prompt, transcripts, permissions

Where a lower layer must start something above it (the Skill tool starting a fork, an agent being
offered the Agent tool), the upper layer hands it a callable; `tests/test_layers.py` checks it.
"""

__version__ = "0.1.0"
