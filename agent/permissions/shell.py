"""Reading shell text without running it: a command line split into its simple commands, a simple
command cut into words, redirections and comments, and a word's literal text. Permission rules match
what these find, so they lean towards finding more commands, never fewer."""

from __future__ import annotations

import re
from dataclasses import dataclass

_MAX_NESTING = 50  # deeper $(...) nesting is refused rather than read
_REDIRECTIONS = ("&>>", "&>", "<<<", "<<-", ">>", ">|", ">&", "<<", "<&", "<>", ">", "<")
_FILE_WRITES = (">", ">>", ">|", "&>", "&>>", "<>")
_SPECIAL = ";&|<>()"  # characters that end an unquoted word


def split_command(command: str) -> list[str]:
    """The simple commands of a shell command line: split at `;`, `&`, `&&`, `|`, `||`, newlines and
    parentheses outside quotes; bodies of `$(...)`, `<(...)`, `>(...)` and backquotes are added as
    commands of their own (the enclosing command keeps its text). Raises ValueError when the
    nesting is too deep to read."""
    parts: list[str] = []
    _scan(command.replace("\\\n", " "), 0, 0, parts)
    return [part.strip() for part in parts if part.strip()]


def _scan(text: str, i: int, depth: int, parts: list[str]) -> int:
    """Append the commands of text[i:] to `parts`, up to the `)` closing a nested scan (depth > 0);
    returns the index where the scan stopped."""
    if depth > _MAX_NESTING:
        raise ValueError("command nesting too deep")
    inner: list[str] = []  # substituted commands, added after the command that holds them
    current, quote = "", None
    while i < len(text):
        char = text[i]
        if quote == "'":  # nothing is special inside single quotes
            quote = None if char == "'" else quote
        elif char == "\\":
            current, i = current + text[i:i + 2], i + 2
            continue
        elif char == "`":
            end = text.find("`", i + 1) % (len(text) + 1)  # an unclosed quote runs to the end
            _scan(text[i + 1:end], 0, depth + 1, inner)
            current, i = current + text[i:end + 1], end + 1
            continue
        elif _is_arithmetic(text, i):  # `$((1+2))` runs no command
            end = text.index("))", i) + 2
            current, i = current + text[i:end], end
            continue
        elif text.startswith(("$(", "<(", ">("), i):
            end = _scan(text, i + 2, depth + 1, inner)
            current, i = current + text[i:end + 1], end + 1
            continue
        elif char == '"':
            quote = None if quote else '"'
        elif char == "'" and quote is None:
            quote = "'"
        elif quote is None and char == "(":  # a subshell: its commands are commands of their own
            parts.append(current)
            current, i = "", _scan(text, i + 1, depth + 1, parts) + 1
            continue
        elif quote is None and char == ")" and depth:
            break
        elif quote is None and (char in ";\n|" or char == "&" and _is_separator(text, i)):
            parts.append(current)
            current = ""
            i += 2 if text.startswith(("&&", "||", "|&", ";;"), i) else 1
            continue
        current += char
        i += 1
    parts.append(current)
    parts.extend(inner)
    return i


def _is_arithmetic(text: str, i: int) -> bool:
    """Whether `$((` starts at i and its body, up to `))`, holds no command substitution."""
    end = text.find("))", i) if text.startswith("$((", i) else -1
    return end > 0 and "$(" not in text[i + 3:end] and "`" not in text[i + 3:end]


def _is_separator(text: str, i: int) -> bool:
    """Whether the `&` at i separates commands rather than redirecting (`2>&1`, `&>file`)."""
    return not (i > 0 and text[i - 1] in "<>") and not text.startswith("&>", i)


@dataclass(frozen=True)
class Token:
    """One piece of a command: a word, an operator (`&&`, `;`, `|`, ...), a redirection (its
    operator, any fd number before it and its target word) or a comment; `start`/`end` index the text."""

    kind: str  # "word", "operator", "redirection" or "comment"
    start: int
    end: int
    operator: str = ""  # a redirection's operator, e.g. ">", ">>", "2>&1" gives ">&"
    target: str = ""  # a redirection's target word as written ("" when it has none)

    @property
    def written_file(self) -> str | None:
        """The target word of a redirection that writes a file (not `2>&1` or `>&-`), else None."""
        if self.operator in _FILE_WRITES or self.operator == ">&" and not re.fullmatch(r"\d+|-", self.target):
            return self.target
        return None


def tokens(text: str) -> list[Token]:
    """The tokens of shell text, in order; quotes, `$(...)`, `${...}` and backquotes stay in their word."""
    found: list[Token] = []
    i = 0
    while i < len(text):
        char = text[i]
        if char.isspace():
            i += 1
        elif char == "#":  # a comment runs to the end of the line
            end = text.find("\n", i) % (len(text) + 1)
            found.append(Token("comment", i, end))
            i = end
        elif _redirection_at(text, i):
            found.append(_redirection(text, i, i))
            i = found[-1].end
        elif char in _SPECIAL and not text.startswith(("<(", ">("), i):
            end = i + (2 if text[i:i + 2] in ("&&", "||", ";;", "|&") else 1)
            found.append(Token("operator", i, end))
            i = end
        else:
            end = _word_end(text, i)
            if text[i:end].isdigit() and _redirection_at(text, end):  # `2>file`: the fd is part of it
                found.append(_redirection(text, i, end))
                i = found[-1].end
            else:
                found.append(Token("word", i, end))
                i = end
    return found


def _redirection_at(text: str, i: int) -> bool:
    return (text.startswith(("<", ">", "&>"), i)) and not text.startswith(("<(", ">("), i)


def _redirection(text: str, start: int, i: int) -> Token:
    """The redirection whose operator starts at i (an fd number may start it at `start`)."""
    operator = next(op for op in _REDIRECTIONS if text.startswith(op, i))
    j = i + len(operator)
    while j < len(text) and text[j] in " \t":
        j += 1
    end = _word_end(text, j) if j < len(text) and text[j] not in _SPECIAL + "\n" else j
    return Token("redirection", start, end, operator, text[j:end])


def _word_end(text: str, i: int) -> int:
    """Where the word starting at i ends: at unquoted space or a special character."""
    while i < len(text):
        char = text[i]
        if char.isspace() or char in _SPECIAL and not text.startswith(("<(", ">("), i):
            return i
        if char == "\\":
            i += 2
        elif char in "'\"`":
            i = _quote_end(text, i)
        elif text.startswith(("$(", "${", "<(", ">("), i):
            i = _group_end(text, i + 1)
        else:
            i += 1
    return len(text)


def _quote_end(text: str, i: int) -> int:
    """The index after the quote that closes the one at i (the end of the text when unclosed)."""
    quote, i = text[i], i + 1
    while i < len(text) and text[i] != quote:
        if quote != "'" and text[i] == "\\":
            i += 1
        elif quote == '"' and text.startswith(("$(", "${"), i):
            i = _group_end(text, i + 1) - 1
        i += 1
    return min(i + 1, len(text))


def _group_end(text: str, i: int) -> int:
    """The index after the bracket closing the `(` or `{` at i, skipping quoted text."""
    opening = text[i]
    closing, depth = {"(": ")", "{": "}"}[opening], 0
    while i < len(text):
        if text[i] in "'\"`":
            i = _quote_end(text, i)
            continue
        if text[i] == "\\":
            i += 2
            continue
        depth += 1 if text[i] == opening else -1 if text[i] == closing else 0
        if depth == 0:
            return i + 1
        i += 1
    return len(text)


def literal(word: str) -> str | None:
    """The text the shell makes of `word` with its quotes removed, or None when expansion
    (`$`, backquotes, globs, a leading `~`) could make it something else."""
    out, i = [], 0
    while i < len(word):
        char = word[i]
        if char == "'":
            end = word.find("'", i + 1)
            if end < 0:
                return None
            out.append(word[i + 1:end])
            i = end + 1
        elif char == '"':
            end = _quote_end(word, i)
            body = word[i + 1:end - 1]
            if end > len(word) or not word[:end].endswith('"') or re.search(r"[$`]", body):
                return None
            out.append(re.sub(r'\\([$`"\\\n])', r"\1", body))
            i = end
        elif char == "\\" and i + 1 < len(word):
            out.append(word[i + 1])
            i += 2
        elif char in "$`*?[" or char == "~" and i == 0 or char == "\\":
            return None
        else:
            out.append(char)
            i += 1
    return "".join(out)
