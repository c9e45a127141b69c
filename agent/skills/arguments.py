"""A skill's arguments: splitting the text after `/name` (or the Skill tool's `args`) into words,
and substituting them into the body.

The rules never eat a dollar the author did not mean as a placeholder:
- `$ARGUMENTS` is the whole argument text; `$ARGUMENTS[N]` the N-th word (zero-based); a named
  argument `$name` its word. Missing, each of these becomes empty.
- A bare `$N` is replaced only when there is an N-th word; otherwise it stays exactly as written,
  so a price `$5.00`, awk's `$1` or a spreadsheet cell `$B$6` survive.
- `\\$` before a placeholder escapes it: `\\$1` reaches the model as `$1`. A backslash before any
  other dollar (`\\$HOME` in a shell snippet) is left alone.
- Words are split shell-style (`"hello world"` is one word), falling back to whitespace when a
  quote is unbalanced (`it's`).
- `${CLAUDE_SKILL_DIR}` is the skill's folder and `${CLAUDE_PROJECT_DIR}` the workspace.

Inside a `!`command``, every substituted value is quoted for where it stands (unquoted: one shell
word per argument; inside "..." or '...': escaped for that quoting), so the shell reads it back
exactly as given: an argument is only ever data for the command, never more command.
"""

from __future__ import annotations

import re
import shlex

_NOT_IDENTIFIER = r"(?![A-Za-z0-9_])"
_SHELL_SPACE = re.compile(r"[ \t\r\n]+")  # what shlex splits on
SKILL_DIR = "${CLAUDE_SKILL_DIR}"
PROJECT_DIR = "${CLAUDE_PROJECT_DIR}"


def split_arguments(args: str) -> list[str]:
    """The words of `args`, split as a shell would (quotes group, backslashes escape); split on
    the same whitespace instead when the quoting is unbalanced."""
    try:
        return shlex.split(args)
    except ValueError:
        return [word for word in _SHELL_SPACE.split(args) if word]


class Substitution:
    """The placeholders of one invocation and what each one becomes."""

    def __init__(self, args: str, named: tuple[str, ...] = (), skill_dir: str = "", project_dir: str = "") -> None:
        self.all_arguments = args.strip(" \t\r\n")
        self.words = split_arguments(args)
        self.named = {name: self._word(index) or "" for index, name in enumerate(named)}
        self.folders = {SKILL_DIR: skill_dir, PROJECT_DIR: project_dir}
        # Longest names first so that `$name` never matches the start of `$names`.
        names = "|".join(re.escape(name) for name in sorted(self.named, key=len, reverse=True))
        argument_forms = [r"\$ARGUMENTS\[(?P<indexed>\d+)\]", rf"\$ARGUMENTS{_NOT_IDENTIFIER}",
                          rf"\$(?P<position>\d+){_NOT_IDENTIFIER}"]
        if names:
            argument_forms.append(rf"\$(?P<named>{names}){_NOT_IDENTIFIER}")
        self.argument_placeholder = re.compile("|".join(argument_forms))
        placeholder = "|".join([*argument_forms, re.escape(SKILL_DIR), re.escape(PROJECT_DIR)])
        # An escaped placeholder is matched first, so `\$1` is never read as a backslash and `$1`.
        self.pattern = re.compile(rf"\\(?P<escaped>{_unnamed(placeholder)})|{placeholder}")

    def _word(self, index: int | str) -> str | None:
        if isinstance(index, str):  # an index too long to be a real position is simply missing
            index = int(index) if len(index) <= 9 else len(self.words)
        return self.words[index] if index < len(self.words) else None

    def _value(self, match: re.Match) -> str | list[str] | None:
        """What a placeholder stands for: a text, the argument words (`$ARGUMENTS`), or None for
        a bare `$N` with no N-th argument, which stays as written."""
        text = match.group()
        if text in self.folders:
            return self.folders[text]
        if match.group("position") is not None:
            return self._word(match.group("position"))  # `$5` with no sixth argument: a literal dollar
        if match.group("indexed") is not None:
            return self._word(match.group("indexed")) or ""
        if match.groupdict().get("named") is not None:
            return self.named[match.group("named")]
        return self.words

    def apply(self, text: str) -> str:
        """`text` with every placeholder replaced, in one pass (inserted values are not rescanned)."""
        def replace(match: re.Match) -> str:
            if match.group("escaped") is not None:
                return match.group("escaped")
            value = self._value(match)
            if value is None:
                return match.group()
            return self.all_arguments if isinstance(value, list) else value
        return self.pattern.sub(replace, text)

    def apply_in_command(self, command: str) -> str:
        """`command` with every placeholder replaced by its value quoted for where it stands:
        unquoted, each argument becomes one shell word; inside "..." or '...' the value is escaped
        for that quoting. So an argument is only ever data for the command. An escaped `\\$1` is
        left to the shell, which reads it as a literal `$1`."""
        out, done, state = [], 0, None
        for match in self.pattern.finditer(command):
            state = _quote_state(command[done:match.start()], state)
            out.append(command[done:match.start()])
            value = None if match.group("escaped") is not None else self._value(match)
            out.append(match.group() if value is None else _quoted_for(value, state))
            done = match.end()
        out.append(command[done:])
        return "".join(out)

    def needs_appended_arguments(self, body: str) -> bool:
        """Whether the arguments must be appended: there are some and `body` has no place for them
        (a bare `$N` left as written, like a price, is no place for them)."""
        return bool(self.all_arguments) and not any(
            match.group("position") is None or self._word(match.group("position")) is not None
            for match in self.argument_placeholder.finditer(body)
        )

    def appended(self) -> str:
        """The line Claude Code appends to a body that has no argument placeholder."""
        return f"\n\nARGUMENTS: {self.all_arguments}"


def substitute(body: str, args: str, named: tuple[str, ...] = (), skill_dir: str = "", project_dir: str = "") -> str:
    """`body` with its placeholders replaced (see the module docstring). When `body` has no
    argument placeholder and `args` is not blank, `ARGUMENTS: <args>` is appended instead."""
    substitution = Substitution(args, named, skill_dir, project_dir)
    text = substitution.apply(body)
    if substitution.needs_appended_arguments(body):
        text += substitution.appended()
    return text


def _quote_state(text: str, state: str | None) -> str | None:
    """The shell quoting in force after `text`, starting in `state` (None, "'" or '"')."""
    escaped = False
    for char in text:
        if escaped:
            escaped = False
        elif state == "'":
            state = None if char == "'" else state
        elif char == "\\":
            escaped = True
        elif char == '"':
            state = None if state == '"' else '"'
        elif char == "'" and state is None:
            state = "'"
    return state


def _quoted_for(value: str | list[str], state: str | None) -> str:
    """`value` written so the shell reads it back unchanged, as data, where quoting is `state`."""
    if state is None:  # unquoted: one shell word per argument; nothing at all for nothing
        words = value if isinstance(value, list) else [value]
        return " ".join(shlex.quote(word) for word in words if word)
    text = " ".join(value) if isinstance(value, list) else value
    if state == "'":
        return text.replace("'", "'\\''")  # close the quote, an escaped quote, open it again
    return re.sub(r'([\\"$`])', r"\\\1", text)  # inside "...": these four are special


def _unnamed(pattern: str) -> str:
    """`pattern` with its named groups made plain, so it can appear twice in one regex."""
    return re.sub(r"\(\?P<[a-z]+>", "(?:", pattern)
