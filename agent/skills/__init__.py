"""Skills: `.claude/skills/<name>/SKILL.md` folders.

`frontmatter` reads the YAML header of any definition file (skills and agents); `discovery` finds
skills and parses their frontmatter; `catalog` lists them for the system prompt; `render` turns one
into the text the model reads (arguments, `!`command`` output, location header); `slash` expands
`/name` commands in a prompt; `tool` is the Skill tool.

May import: `tools`, `permissions`, `model` (model aliases), `conversation`, `errors`. A forked skill runs as a subagent:
the subagents layer (above this one) hands the Skill tool the callable that runs it.
"""
