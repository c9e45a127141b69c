"""Permission modes, and how a subagent's declared `permissionMode` combines with the mode of the
conversation that starts it, as Claude Code's subagents page tells it:

- unset (or not a mode): the agent inherits the mode it is started in;
- started in bypassPermissions, acceptEdits or auto: it runs in that mode, its own is ignored;
- started in plan: it stays in plan mode; a declared dontAsk also keeps it from asking anyone (what
  plan mode would put to the person is refused);
- started in default or dontAsk: it runs in its own mode, except a declared bypassPermissions,
  which keeps the starting mode (an agent bypasses only when its parent does).

Auto is always available here (it decides as default does, see `policy`), so a declared auto
applies under default and dontAsk.
"""

from __future__ import annotations

# dontAsk refuses whatever needs approval, which -p mode does anyway; auto needs Claude Code's
# safety classifier, which we lack, so it decides as default does (as Claude Code falls back).
MODES = ("default", "acceptEdits", "bypassPermissions", "plan", "dontAsk", "auto")
_PARENT_WINS = ("bypassPermissions", "acceptEdits", "auto")


def agent_mode(declared: object, parent: str, parent_quiet: bool = False) -> tuple[str, bool]:
    """The (mode, quiet) a subagent declaring `declared` runs in when started by a conversation in
    mode `parent` (`parent_quiet`: that conversation asks no one). `quiet` is true only for plan
    mode kept from a declared dontAsk (or inherited from such a parent): nothing is put to a person."""
    if declared not in MODES:
        return parent, parent_quiet
    if parent in _PARENT_WINS:
        return parent, False
    if parent == "plan":
        return "plan", parent_quiet or declared == "dontAsk"
    if declared == "bypassPermissions":
        return parent, False
    return str(declared), False
