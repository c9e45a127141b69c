"""Permissions: which tool calls may run without asking, in Claude Code's model.

`settings` reads the rules, mode and keys of `~/.claude/settings.json`, `<cwd>/.claude/settings.json`
and `<cwd>/.claude/settings.local.json` (`"permissions": {"allow", "deny", "ask", "defaultMode",
"disableBypassPermissionsMode", "additionalDirectories"}`) and adds the command-line flags; `trust`
says whether the workspace is trusted (`~/.claude.json`): until it is, the project's own files grant
nothing (their allow rules, added folders and bypass mode are ignored, their deny and ask rules
apply); `policy`
decides each call; `rules` reads one rule; `commands` and `shell` match Bash rules, `paths` file rules.
A rule is `Tool` or `Tool(*)` (every use) or `Tool(specifier)`, with `\\(`, `\\)` and `\\\\` escaped
inside the parentheses; `Task` is the old name of `Agent`:

- Bash: `Bash(git push:*)` (the command is `git push` or starts with `git push `), `Bash(npm run *)`
  (`*` matches anything; a final ` *` also matches nothing when it is the only `*`) or an exact
  `Bash(ls -la)`. An exact rule is first compared with the whole command line; then the line is
  split at `&&`, `||`, `;`, `|`, `&` and newlines, and `$(...)`, backquoted and `<(...)` bodies count
  as commands of their own: every part must be allowed, any denied part denies all. Deny and ask
  rules see through redirections, `VAR=value` prefixes, wrappers (`timeout`, `nohup`, `sudo`,
  `xargs`, ...) and `sh -c`/`eval`/`find -exec`; allow rules only through redirections that write
  inside the workspace and harmless prefixes (`timeout 120`, `NODE_ENV=test`).
- Files: gitignore-style patterns. `//abs/**` is absolute, `~/x/**` is in the home folder, and every
  other pattern is relative to the workspace, `./` dropped; a pattern without an inner `/` (`.env`,
  `*.env`) matches at any depth. `Edit(...)` rules also cover Write, `Read(...)` rules Glob and Grep.
- `Agent(Explore)` names a subagent type and `Skill(name)` a skill; other specifiers never match.

A rule Claude Code would skip or never consult approves nothing; as a deny or ask rule it is read
as its writer most plausibly meant it, and each such rule is one warning naming its file.

Order of decision: a deny rule refuses (in every mode); an ask rule refuses, since no one can answer in
-p mode, except in bypassPermissions; plan mode refuses anything that is not read-only; an allow rule
approves; bypassPermissions approves; read-only tools and Agent need no approval; acceptEdits
approves edits inside the workspace and the additional directories; everything else needs approval,
which -p mode cannot give (dontAsk and auto decide as default does).

May import: `errors` only. Every layer above may use it.
"""
