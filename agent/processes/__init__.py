"""Child processes: a command run in its own process group with bounded output and a timeout
(the Bash tool's commands, a skill's `!`command``, hooks), and taking every one still running
down when the agent ends. May import: agent.secrets."""
