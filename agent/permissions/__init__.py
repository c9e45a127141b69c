"""Permissions: which tool calls may run without asking, in Claude Code's model.

`settings` reads the rules and mode from `~/.claude/settings.json`, `<cwd>/.claude/settings.json` and
`<cwd>/.claude/settings.local.json` (`"permissions": {"allow", "deny", "ask", "defaultMode"}`) and
adds the command-line flags; `policy` decides each call; `rules` reads and matches one rule.
A rule is `Tool` (every use) or `Tool(specifier)`:

- Bash: `Bash(git push:*)` (the command is `git push` or starts with `git push `), `Bash(npm run *)`
  (`*` matches anything; a trailing ` *` also matches nothing) or an exact `Bash(ls -la)`. Compound
  commands are split at `&&`, `||`, `;`, `|`, `&` and newlines, and `$(...)`, backquoted and `<(...)`
  bodies count as commands of their own: every part must be allowed, any denied part denies all.
- Files: gitignore-style patterns. `//abs/**` is absolute, `~/x/**` is in the home folder, and every
  other pattern is relative to the workspace; a pattern without a `/` (`*.env`) matches at any depth.
  `Edit(...)` rules also cover Write, and `Read(...)` rules also cover Glob and Grep.
- `Agent(Explore)` names a subagent type and `Skill(name)` a skill; other specifiers never match.

Order of decision: a deny rule refuses (in every mode); an ask rule refuses, since no one can answer in
-p mode, except in bypassPermissions; plan mode refuses anything that is not read-only; an allow rule
approves; bypassPermissions approves; read-only tools and Agent need no approval; acceptEdits
approves edits inside the workspace; everything else needs approval, which -p mode cannot give.

May import: `errors` only. Every layer above may use it.
"""
