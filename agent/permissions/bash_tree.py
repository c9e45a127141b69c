"""A Bash command line read on a real parse tree (tree-sitter with the tree-sitter-bash grammar):
every simple command anywhere in it (lists, pipelines, subshells, groups, `if`/`while`/`for`/`case`
bodies, function bodies, `!`, command and process substitutions, expanding here-documents,
redirection targets, arithmetic, assignments), each word as bash would read it (quotes, `$'..'`,
backslashes and line continuations removed) or marked as built at run time, every redirection, and
each construct the reading cannot be sure of, named. Permission rules are matched against what
this finds; whatever it is unsure of is listed in `Analysis.problems`, never guessed.

The parser is imported on the first command that must be checked, so a run that checks none
pays nothing for it."""

from __future__ import annotations

import re
import threading
from typing import Any

from agent.permissions.bash_grammar import CONTAINERS, DYNAMIC, LEAVES, REDIRECTS, RESERVED, descendants, unbackquoted
from agent.permissions.bash_suspects import suspicions
from agent.permissions.bash_words import (BRACES, Analysis, Redirect, SimpleCommand, Word, ansi_c, concatenated,
                                          unquoted_word)

MAX_COMMAND_CHARS = 100_000  # longer command lines are not read: refused unless plain `Bash` allows
MAX_DEPTH = 100  # deeper nesting is not read

_parser: Any = None
_parser_lock = threading.Lock()  # a tree-sitter parser is not safe to share between threads


def analyse(command: str) -> Analysis:
    """The simple commands, redirections and unreadable constructs of `command`."""
    found = Analysis()
    if len(command) > MAX_COMMAND_CHARS:
        found.problems.append(f"a command line over {MAX_COMMAND_CHARS:,} characters")
        return found
    if "\x00" in command:
        found.problems.append("a NUL character")
        return found
    if any("\ud800" <= char <= "\udfff" for char in command):  # bytes that are not UTF-8 reach bash raw
        found.problems.append("bytes that are not UTF-8 text")
        return found
    source = command.encode("utf-8")  # slices of it are decoded with replacement: a cut character reads as U+FFFD
    with _parser_lock:
        tree = _get_parser().parse(source)
    _Reader(source, found).statement(tree.root_node, 0)
    found.problems += [problem for problem in suspicions(source, tree.root_node) if problem not in found.problems]
    if tree.root_node.has_error and not any(p.startswith("a syntax error") for p in found.problems):
        found.problems.append("a syntax error")
    return found


def _get_parser():
    global _parser
    if _parser is None:
        import tree_sitter
        import tree_sitter_bash

        _parser = tree_sitter.Parser(tree_sitter.Language(tree_sitter_bash.language()))
    return _parser


class _Reader:
    """Walks one parse tree, filling an Analysis."""

    def __init__(self, source: bytes, found: Analysis) -> None:
        self.source, self.found = source, found

    def text(self, node) -> str:
        return self.source[node.start_byte:node.end_byte].decode("utf-8", errors="replace")

    def problem(self, what: str) -> None:
        if what not in self.found.problems:
            self.found.problems.append(what)

    def statement(self, node, depth: int) -> None:
        """Read `node` and everything under it."""
        if depth > MAX_DEPTH:
            return self.problem("nesting too deep to read")
        if node.type == "ERROR" or node.is_missing:
            return self.problem("a syntax error (" + _clip(self.text(node)) + ")")
        if depth == 0:
            self.continuations(node)
        kind = node.type
        if kind == "command":
            return self.command(node, depth)
        if kind in ("declaration_command", "unset_command"):
            return self.declaration(node, depth)
        if kind == "variable_assignment":
            name, value = self.assignment(node, depth)
            return self.found.commands.append(SimpleCommand(self.text(node), ((name, value),), ()))
        if kind in REDIRECTS:
            return self.redirect(node, depth) and self.problem("words after a redirection's target")
        if kind == "redirected_statement":
            return self.redirected(node, depth)
        if kind == "heredoc_body" and not node.named_children:
            return None  # a quoted delimiter: the body is text, nothing in it expands
        if kind not in CONTAINERS and kind not in LEAVES and node.is_named:
            return self.problem(f"a construct the checker does not know ({kind})")
        if kind == "extglob_pattern":
            return self.problem("an extended glob pattern")
        if kind == "for_statement" and (variable := node.child_by_field_name("variable")) is not None:
            self.found.assigned.add(self.text(variable))
        if kind == "command_substitution" and self.text(node).startswith("`") and "\\" in self.text(node):
            # inside backquotes `\`` starts a nested substitution the grammar reads as text
            self.merge(analyse(unbackquoted(self.text(node)[1:-1])))
        for child in node.children:
            if child.is_named or child.type == "ERROR":
                self.statement(child, depth + 1)

    def continuations(self, root) -> None:
        """A backslash-newline that bash removes inside a word, where the grammar splits the word, is
        a reading we cannot trust (joining touching words in a command handles the plain case)."""
        for match in re.finditer(rb"(?<!\\)(?:\\\\)*\\\n", self.source):
            start = match.end() - 2
            node = root.descendant_for_byte_range(start, start + 2)
            while node is not None and not node.is_named:
                node = node.parent
            if node is not None and node.type not in CONTAINERS | {"command", "raw_string", "comment",
                                                                      "string_content", "heredoc_body",
                                                                      "heredoc_content"}:
                self.problem("a line continuation inside a word")

    def redirected(self, node, depth: int) -> None:
        """A statement with redirections after it. The grammar hangs the words that follow a
        target (`echo x > f y`, `find . 2>/dev/null -exec ...`) on the redirection; bash passes
        them to the command, so they go back to it."""
        body, extras = node.child_by_field_name("body"), []
        for child in node.named_children:
            if child.type in REDIRECTS:
                extras += self.redirect(child, depth)
        for child in node.named_children:
            if child.type in REDIRECTS:
                continue
            if body is not None and child.type == "command" and child.start_byte == body.start_byte:
                self.command(child, depth + 1, extras)
            else:
                self.statement(child, depth + 1)
        if extras and (body is None or body.type != "command"):
            self.problem("words after a redirection's target")

    def command(self, node, depth: int, extras: list | None = None) -> None:
        assignments, pieces = [], []
        for child in node.children:
            if child.type == "variable_assignment":
                assignments.append(self.assignment(child, depth))
            elif child.type in REDIRECTS:
                pieces += self.redirect(child, depth)  # `> f echo y`: words after the target are the command's
            elif child.type == "command_name":
                pieces.append(child.named_children[0] if child.named_child_count == 1 else child)
            elif child.type == "comment":
                continue
            else:
                pieces.append(child)
        words = [self.joined(group, depth) for group in self.touching(pieces + (extras or []))]
        if words and words[0].source in RESERVED:  # `! { rm x; }`: the grammar took `{` for a command
            self.problem(f"the reserved word '{words[0].source}' where a command should be")
            if len(words) > 1:
                self.found.commands.append(SimpleCommand(self.text(node), (), tuple(words[1:])))
        self.found.commands.append(SimpleCommand(self.text(node), tuple(assignments), tuple(words)))

    def declaration(self, node, depth: int) -> None:
        """`export A=1`, `declare -x B=$(cmd)`, `local`, `readonly`, `unset`: a command named by its keyword."""
        words = [Word(node.children[0].type, node.children[0].type, node.children[0].type)]
        for child in node.children[1:]:
            if child.type == "variable_assignment":
                name, value = self.assignment(child, depth)
                words.append(Word(self.text(child), None if value.text is None else f"{name}={value.text}"))
            elif child.is_named:
                words.append(self.word(child, depth))
        self.found.commands.append(SimpleCommand(self.text(node), (), tuple(words)))

    def assignment(self, node, depth: int) -> tuple[str, Word]:
        """(name, value) of `NAME=value`; the value's substitutions are read as commands."""
        name_node = node.child_by_field_name("name") or node.children[0]
        value_node = node.child_by_field_name("value")
        name = self.text(name_node)
        self.found.assigned.add(name.split("[")[0])
        if name_node.type == "variable_name" and not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name):
            self.problem(f"'{_clip(name)}=', which bash runs as a command, not an assignment")
        if name_node.type != "variable_name":  # `a[$(cmd)]=1`: the subscript is read, and it is not plain
            self.statement(name_node, depth + 1)
            name = ""
        if value_node is None:
            return name, Word("", "")
        return name, self.word(value_node, depth)

    def redirect(self, node, depth: int) -> list:
        """Record a redirection; returns the nodes after its target, which are command words."""
        operator = next((child.type for child in node.children if not child.is_named), "")
        if node.type == "heredoc_redirect":
            self.heredoc(node, depth)
            self.found.redirects.append(Redirect("<<", None))
            return []
        targets = [child for child in node.named_children if child.type not in ("file_descriptor",)]
        target = self.word(targets[0], depth) if targets else None
        if b"\n" in self.source[node.start_byte:node.end_byte].replace(b"\\\n", b""):
            self.problem("a line break inside one command, where bash ends the command")  # `> \<space><LF>cmd`
        fd = next((self.text(child) for child in node.named_children if child.type == "file_descriptor"), "")
        if target is not None and re.match(r"/dev/(?:tcp|udp)/", target.text or target.prefix):
            self.problem("a /dev/tcp or /dev/udp redirection, which opens a network connection")
        elif target is not None and target.text is None and target.prefix.startswith("/dev/"):
            self.problem("a redirection to a /dev path decided at run time")
        self.found.redirects.append(Redirect(operator, target, fd))
        return targets[1:]

    def heredoc(self, node, depth: int) -> None:
        """A here-document's body expands like a double-quoted string unless its delimiter is quoted.
        The grammar misses backquotes there and every expansion of a `<<-` body, so backquoted
        commands are read here, and a `$(` the grammar did not read is a construct named unread."""
        start = next((child for child in node.named_children if child.type == "heredoc_start"), None)
        body = next((child for child in node.named_children if child.type == "heredoc_body"), None)
        for child in node.named_children:  # `cat <<EOF && cmd`, `<<EOF | sh`, `<<EOF > file`: the grammar nests them here
            if child.type not in ("heredoc_start", "heredoc_body", "heredoc_end"):
                self.statement(child, depth + 1)
        if start is not None and body is not None and re.search(r"['\"\\$]", self.text(start)):
            # bash ends the body at the delimiter with its quotes removed (`<<E"O"F` ends at `EOF`)
            delimiter = re.sub(r"""\$?['"]|\\""", "", self.text(start))
            strip = "\t" if any(child.type == "<<-" for child in node.children) else ""
            if any(line.lstrip(strip) == delimiter for line in self.text(body).split("\n")):
                self.problem("a here-document whose quoted delimiter bash would find earlier than the grammar")
        if body is None or start is None or re.search(r"['\"\\]", self.text(start)):
            return None  # no body, or a quoted delimiter: the body is text, nothing in it expands
        self.statement(body, depth + 1)
        text = self.text(body)
        read = sum(1 for _ in descendants(body, ("command_substitution", "arithmetic_expansion")))
        if text.count("$(") > read:
            self.problem("a here-document expansion the checker cannot read")
        quotes = re.findall(r"(?<!\\)(?:\\\\)*`((?:\\.|[^`\\])*)`", text, re.DOTALL)
        if len(re.findall(r"(?<!\\)(?:\\\\)*`", text)) != 2 * len(quotes):
            return self.problem("an unpaired backquote in a here-document")
        for inner in quotes:
            self.merge(analyse(unbackquoted(inner)))

    def merge(self, nested: Analysis) -> None:
        """Add what a separately read piece of the line (a backquoted body) does."""
        self.found.commands += nested.commands
        self.found.redirects += nested.redirects
        for problem in nested.problems:
            self.problem(problem)

    def touching(self, pieces: list) -> list[list]:
        """Pieces of a command grouped into words: bash ends a word only at unquoted blanks, so
        pieces that touch (or meet across a line continuation) are one word."""
        groups: list[list] = []
        for piece in pieces:
            gap = self.source[groups[-1][-1].end_byte:piece.start_byte] if groups else b" "
            if groups and re.fullmatch(rb"(?:\\\n)*", gap):
                groups[-1].append(piece)
            else:
                groups.append([piece])
        return groups

    def joined(self, group: list, depth: int) -> Word:
        if len(group) == 1:
            return self.word(group[0], depth)
        parts, i = [], 0
        while i < len(group):
            piece = group[i]
            if not piece.is_named and piece.type == "$" and i + 1 < len(group) and group[i + 1].type == "string":
                parts.append(self.word(group[i + 1], depth))  # `$"..."`: a translated string
                i += 2
                continue
            if not piece.is_named:
                self.problem(f"an unexpected '{_clip(self.text(piece))}' in a command")
                parts.append(Word(self.text(piece), None))
            else:
                parts.append(self.word(piece, depth))
            i += 1
        source = self.source[group[0].start_byte:group[-1].end_byte].decode("utf-8", errors="replace")
        return concatenated(source, parts)

    def word(self, node, depth: int) -> Word:
        """What bash makes of one word node; substitutions inside it are read as commands."""
        source, kind = self.text(node), node.type
        if kind in DYNAMIC or kind not in ("word", "number", "raw_string", "string", "ansi_c_string",
                                            "translated_string", "concatenation"):
            return self.dynamic(node, depth)
        if kind == "number":
            return Word(source, source, source)
        if kind == "raw_string":
            return Word(source, source[1:-1], source[1:-1])
        if kind == "ansi_c_string":
            text = ansi_c(source[2:-1])
            return Word(source, text, text or "")
        if kind == "translated_string":
            inner = self.word(node.named_children[0], depth) if node.named_children else Word(source, "")
            return Word(source, inner.text, inner.prefix)
        if kind == "string":
            return self.string(node, depth)
        if kind == "concatenation":
            word = concatenated(source, [self.word(child, depth) for child in node.named_children])
            # the grammar splits `{a,b}` into pieces; quoted pieces inside braces still expand
            bare = "".join(self.text(c) if c.type == "word" else "x" for c in node.named_children)
            return Word(source, None, word.prefix.split("{")[0]) if BRACES.search(bare) else word
        return unquoted_word(source)

    def string(self, node, depth: int) -> Word:
        """A double-quoted string: literal unless something in it expands. Its text is read from the
        source between the quotes and the expansions (the grammar leaves line breaks out of its pieces)."""
        parts, position = [], node.start_byte + 1
        for child in node.named_children:
            if child.type == "string_content":
                continue
            parts += self.quoted_text(position, child.start_byte)
            parts.append(self.dynamic(child, depth))
            position = child.end_byte
        return concatenated(self.text(node), parts + self.quoted_text(position, node.end_byte - 1))

    def dynamic(self, node, depth: int) -> Word:
        """A piece of a word that expansion decides: read for the commands in it, and marked with
        the variables it reads and whether a command's output is part of it."""
        self.statement(node, depth + 1)
        names, substituted, stack = [], node.type in ("command_substitution", "process_substitution"), [node]
        while stack:
            current = stack.pop()
            if current.type in ("variable_name", "special_variable_name"):
                names.append(self.text(current))
            substituted = substituted or current.type in ("command_substitution", "process_substitution")
            stack.extend(current.children)
        return Word(self.text(node), None, "", tuple(dict.fromkeys(names)), substituted)

    def quoted_text(self, start: int, end: int) -> list[Word]:
        """The literal text of source[start:end] inside double quotes: `\\$`, `\\``, `\\"`, `\\\\`
        lose their backslash and a line continuation vanishes."""
        if end <= start:
            return []
        raw = self.source[start:end].decode("utf-8", errors="replace")
        text = re.sub(r'\\([$`"\\])', r"\1", raw.replace("\\\n", ""))
        return [Word(raw, text, text)]


def _clip(text: str) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= 40 else flat[:39] + "…"
