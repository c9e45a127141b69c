"""Child processes: a command run in its own process group with bounded output and a timeout
(the Bash tool's commands, a skill's `!`command``, hooks), and taking every one still running
down when the agent ends; the git status snapshot a conversation starts with (git_status).
May import: agent.secrets, agent.workspace."""
