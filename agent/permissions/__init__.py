"""Permissions: which tool calls may run without asking, in Claude Code's model.

`settings` reads the rules, mode and keys of `~/.claude/settings.json`, `<cwd>/.claude/settings.json`
and `<cwd>/.claude/settings.local.json` (`"permissions": {"allow", "deny", "ask", "defaultMode",
"disableBypassPermissionsMode", "additionalDirectories"}`) and adds the command-line flags; `trust`
says whether the workspace is trusted (`~/.claude.json`): until it is, the project's own files grant
nothing (their allow rules, added folders and bypass mode are ignored, their deny and ask rules
apply); `policy` decides each call (`decisions` words its refusals); `rules` reads one rule; `paths` matches file rules and `sensitive` names the
files that always ask. Bash: `bash_tree` reads a command line on a tree-sitter parse tree (its node
types in `bash_grammar`) into the pieces of `bash_words`, `bash_suspects` names where the grammar and
bash could part ways, `wrappers` reads wrapper commands' options, `runs` finds the command lines a
command runs, `commands` matches Bash rules against each simple command, `command_files` finds the
files readers and writers name, and `bash_check` decides. A rule is `Tool` or `Tool(*)`
(every use) or `Tool(specifier)`, with `\\(`, `\\)` and `\\\\` escaped inside the parentheses;
`Task` is the old name of `Agent`:

- Bash: `Bash(git push:*)` (the command is `git push` or starts with `git push `), `Bash(npm run *)`
  (`*` matches anything; a final ` *` also matches nothing when it is the only `*`) or an exact
  `Bash(ls -la)`. Every simple command anywhere in the parse tree is matched (lists, pipelines,
  subshells, groups, `if`/`while`/`for`/`case` and function bodies, substitutions, expanding
  here-documents, redirection targets), with its words read as bash reads them. Deny and ask rules
  see through `VAR=value` prefixes, wrappers (`timeout`, `sudo`, `xargs`, `env`, ...), a command's
  folder, global options (`git -C . push`) and the lines `sh -c`, `eval`, `find -exec` run; a word
  decided at run time (`$CMD`, `r{m,x}`) counts as whatever it could be, so a deny rule wins
  whenever the denied command could run. Read and Edit rules also cover the files `cat`, `grep`,
  `sed -i`, `cp`, `tee`, redirections ... name. Allow rules fail closed: they approve a line only
  when the parse understood all of it, every command is covered (and every command a wrapper or
  `sh -c` runs), and every file it writes lies inside the allowed folders and is not sensitive.
- Files: gitignore-style patterns. `//abs/**` is absolute, `~/x/**` is in the home folder, and every
  other pattern is relative to the workspace, `./` dropped; a pattern without an inner `/` (`.env`,
  `*.env`) matches at any depth. `Edit(...)` rules also cover Write, `Read(...)` rules Glob and Grep.
- `Agent(Explore)` names a subagent type and `Skill(name)` a skill; other specifiers never match.
- MCP tools: `mcp__kb` is every tool of the server kb, `mcp__kb__lookup` one tool, `mcp__kb__*`
  a pattern (an allow rule must name its server as written). A deny rule covering every use of
  an MCP tool removes it: the agents are neither offered it nor told its name.

A rule Claude Code would skip or never consult approves nothing; as a deny or ask rule it is read
as its writer most plausibly meant it, and each such rule is one warning naming its file.

Order of decision: a deny rule refuses (in every mode); an ask rule refuses, since no one can answer in
-p mode, except in bypassPermissions; plan mode refuses anything that is not read-only; an allow rule
approves; bypassPermissions approves; read-only tools and Agent need no approval (Agent does in
dontAsk, as the seed says: an `Agent` or `Agent(name)` allow rule); acceptEdits
approves edits inside the workspace and the additional directories (at their real paths, never a
sensitive file, which only a rule naming it or bypass approves); everything else needs approval,
which -p mode cannot give (dontAsk and auto decide as default does; dontAsk's refusal says so, and
dontAsk never asks, even interactively). `modes` says which mode a subagent runs in, from its
definition's permissionMode and its parent's mode.

May import: `errors` only. Every layer above may use it.
"""
