"""Where a parse tree and bash part ways, found by looking at the whole tree after it is read: the
grammar takes characters for blanks that bash does not, starts comments bash would not, and a few
constructs make bash evaluate quoted text later (a subscript `a[$(cmd)]` in a name or number, a
prompt expansion `${x@P}`, `PS4`). Each is a problem: no allow rule approves the line, and a deny or
ask rule refuses it, since what runs cannot be read."""

from __future__ import annotations

import re

from agent.permissions.bash_words import HARMLESS_VARIABLES, ansi_c

_BLANKS = frozenset(" \t\n")
_BEFORE_COMMENT = frozenset(b" \t\n;&|()<>")
_SUBSCRIPT_SUBSTITUTION = re.compile(r"\[[^\]]*(?:\$\(|`)")  # `a[$(cmd)]`: run when evaluated as a name
# variables bash runs later, or that change what a name runs
LATER_RUN = re.compile(r"PS[0-4]|PROMPT_COMMAND|BASH_ENV|ENV|BASH_FUNC_.*|BASH_CMDS|BASH_ALIASES|POSIXLY_CORRECT|SHELLOPTS")
_SUBSTITUTION = re.compile(r"\$\(|`")
_UNREAD_SUBSTITUTION = re.compile(r"(?<!\\)(?:\\\\)*(?:\$\(|`|[<>]\()")  # unescaped `$(`, backquote, `<(`, `>(`
_ARITHMETIC_TEST = re.compile(r"\s-(?:eq|ne|lt|le|gt|ge|v|R)\s")
_LITERALS = frozenset({"raw_string", "string_content", "word", "heredoc_content", "ansi_c_string", "heredoc_body"})


def suspicions(source: bytes, root) -> list[str]:
    """The constructs of the tree under `root` (parsed from `source`) that bash may read otherwise."""
    text = source.decode("utf-8", errors="replace")
    found = [f"a {repr(char)} character, which bash does not take for a blank"
             for char in dict.fromkeys(c for c in text if c.isspace() and c not in _BLANKS)]
    if re.search(r"/dev/(?:tcp|udp)/", text):
        found.append("a /dev/tcp or /dev/udp path, which opens a network connection")
    stack, evaluates, sets = [root], False, False
    while stack:
        node = stack.pop()
        stack.extend(node.children)
        if problem := _suspect(source, node):
            found.append(problem)
        evaluates = evaluates or _evaluates(source, node)
        sets = sets or _sets_variable(source, node)
    if evaluates and sets:  # `x='a['; x+='$(cmd)]'; : $((x))`
        found.append("arithmetic on a variable the line sets, whose value bash could run as a[$(...)]")
    return list(dict.fromkeys(found))


def _evaluates(source: bytes, node) -> bool:
    """Whether `node` makes bash evaluate a variable's value as arithmetic or as a name."""
    kind, text = node.type, _text(source, node)
    return (kind in ("arithmetic_expansion", "c_style_for_statement", "subscript")
            or kind == "compound_statement" and text.startswith("((")
            or kind == "test_command" and text.startswith("[[") and bool(_ARITHMETIC_TEST.search(text))
            or kind == "expansion" and text.startswith("${!")
            or kind == "command" and text.split(maxsplit=1)[:1] in (["let"], ["declare"], ["typeset"], ["local"]))


def _sets_variable(source: bytes, node) -> bool:
    """Whether `node` sets a variable from text the line supplies or reads."""
    return node.type in ("variable_assignment", "for_statement") or node.type == "command" and \
        _text(source, node).split(maxsplit=1)[:1] in (["read"], ["mapfile"], ["readarray"], ["printf"], ["getopts"])


def _suspect(source: bytes, node) -> str | None:
    kind, body = node.type, source[node.start_byte:node.end_byte].decode("utf-8", errors="replace")
    if kind == "command" and _bare_line_break(source, node):
        return "a line break inside one command, where bash ends the command"
    if kind in ("word", "regex", "extglob_pattern") and not node.children and _UNREAD_SUBSTITUTION.search(body):
        return "a substitution the grammar left as text (inside ${...}, a [[ =~ ]] pattern, ...)"
    if kind == "ansi_c_string" and _SUBSTITUTION.search(ansi_c(body[2:-1]) or "$("):
        return "a $'...' string that spells a substitution, which bash runs if it evaluates it"
    if kind in ("subscript", "test_command", "arithmetic_expansion", "c_style_for_statement") and body != (
            bare := re.sub(r"[\"'\\]", "", body)) and _SUBSCRIPT_SUBSTITUTION.search(bare):
        return "quotes that assemble a[$(...)] where bash evaluates it"
    if kind == "raw_string" and _SUBSTITUTION.search(body) and _inside_quoted_expansion(node):
        return "single quotes inside a double-quoted ${...}, which bash reads as plain characters"
    if kind == "comment" and not _comment_starts_a_word(source, node.start_byte):
        return "a '#' that bash reads as part of a word, not as a comment"
    if kind in _LITERALS and (kind != "heredoc_body" or not node.named_children) and _SUBSCRIPT_SUBSTITUTION.search(body):
        return "a quoted '[...$(...)]', which bash runs when it evaluates the text as a name or a number"
    if kind == "expansion" and body.endswith("@P}"):
        return "a prompt expansion (${...@P}), which runs the substitutions in its value"
    name = node.child_by_field_name("name") if kind == "variable_assignment" else None
    if name is not None and LATER_RUN.fullmatch(_text(source, name).split("[")[0]):
        return f"an assignment to {_text(source, name)}, which bash runs later"
    variable = node.child_by_field_name("variable") if kind == "for_statement" else None
    if variable is not None and environment_like(_text(source, variable)):
        return f"a loop that sets the environment variable {_text(source, variable)}"
    return None


_QUOTED = frozenset({"raw_string", "string", "ansi_c_string", "translated_string", "command_substitution",
                     "process_substitution", "arithmetic_expansion", "expansion", "heredoc_redirect",
                     "herestring_redirect"})


def _bare_line_break(source: bytes, command) -> bool:
    """Whether `command` spans an unquoted, unescaped line break (`echo x<LF>\\touch y`, which the
    grammar reads as one word and bash as two commands)."""
    quoted, stack = [], list(command.children)
    while stack:
        node = stack.pop()
        if node.type in _QUOTED:
            quoted.append((node.start_byte, node.end_byte))
        else:
            stack.extend(node.children)
    for index in range(command.start_byte, command.end_byte):
        if source[index] == 10 and not any(start <= index < end for start, end in quoted):
            slashes = len(source[command.start_byte:index]) - len(source[command.start_byte:index].rstrip(b"\\"))
            if slashes % 2 == 0:
                return True
    return False


def _inside_quoted_expansion(node) -> bool:
    """Whether `node` lies in a `${...}` that lies in a double-quoted string."""
    parent, seen_expansion = node.parent, False
    while parent is not None:
        seen_expansion = seen_expansion or parent.type == "expansion"
        if parent.type == "string" and seen_expansion:
            return True
        parent = parent.parent
    return False


def _comment_starts_a_word(source: bytes, start: int) -> bool:
    """Whether bash starts a comment at `start`: at the start of a word, after an unescaped blank
    or an operator."""
    if start == 0:
        return True
    before = source[start - 1]
    if before not in _BEFORE_COMMENT:
        return False
    slashes = len(source[:start - 1]) - len(source[:start - 1].rstrip(b"\\"))
    return slashes % 2 == 0


def environment_like(name: str) -> bool:
    """An upper-case name a program may read from its environment (`PATH`, `HOME`, `GIT_DIR`),
    other than the variables that change only how tools print."""
    return name.isupper() and name not in HARMLESS_VARIABLES


def _text(source: bytes, node) -> str:
    return source[node.start_byte:node.end_byte].decode("utf-8", errors="replace")
