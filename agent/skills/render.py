"""Turning a skill into the text the model reads: arguments substituted, `!`command`` output
inserted, and a header saying where the skill's folder is. Slash commands, the Skill tool and
forked skills all render through `render`."""

from __future__ import annotations

import re
from pathlib import Path

from agent.skills.discovery import Skill
from agent.tools.shell import run_shell

COMMAND_TIMEOUT_S = 30
COMMAND_OUTPUT_LIMIT = 20_000
HEADER = ("Skill: {name} (located at {location})\n"
          "Paths in the instructions below are relative to that folder.")

_NOT_IDENTIFIER = r"(?![A-Za-z0-9_])"
# `!`command`` counts only at the start of a line or after whitespace, as in Claude Code.
_COMMAND = re.compile(r"(?<!\S)!`([^`\n]+)`")
_SKILL_DIR = "${CLAUDE_SKILL_DIR}"


class _Substitution:
    """The placeholders of one invocation and what each one becomes."""

    def __init__(self, args: str, named: tuple[str, ...], skill_dir: str) -> None:
        self.all_arguments = args.strip()
        self.positional = split_arguments(args)
        self.named = {name: self._positional(index) for index, name in enumerate(named)}
        self.skill_dir = skill_dir
        # Longest names first so that `$name` never matches the start of `$names`.
        names = sorted(self.named, key=len, reverse=True)
        named_pattern = "|".join(re.escape(name) for name in names)
        argument_patterns = [r"\$ARGUMENTS\[(?P<indexed>\d+)\]", rf"\$ARGUMENTS{_NOT_IDENTIFIER}",
                             rf"\$(?P<position>\d+){_NOT_IDENTIFIER}"]
        if named_pattern:
            argument_patterns.append(rf"\$(?P<named>{named_pattern}){_NOT_IDENTIFIER}")
        self.argument_placeholder = re.compile("|".join(argument_patterns))
        self.any_placeholder = re.compile(
            "|".join(argument_patterns + [re.escape(_SKILL_DIR)]))

    def _positional(self, index: int | str) -> str:
        # an index too long to be a real position (or to convert) is simply missing
        if isinstance(index, str):
            index = int(index) if len(index) <= 9 else len(self.positional)
        return self.positional[index] if index < len(self.positional) else ""

    def _value(self, match: re.Match) -> str:
        if match.group() == _SKILL_DIR:
            return self.skill_dir
        if match.group("indexed") is not None:
            return self._positional(match.group("indexed"))
        if match.group("position") is not None:
            return self._positional(match.group("position"))
        if "named" in match.groupdict() and match.group("named") is not None:
            return self.named[match.group("named")]
        return self.all_arguments

    def apply(self, text: str) -> str:
        """`text` with every placeholder replaced, in one pass: inserted values are not rescanned."""
        return self.any_placeholder.sub(self._value, text)

    def needs_appended_arguments(self, body: str) -> bool:
        """Whether the arguments must be appended: there are some and `body` has no place for them."""
        return bool(self.all_arguments) and not self.argument_placeholder.search(body)

    def appended(self) -> str:
        return f"\n\nARGUMENTS: {self.all_arguments}"


def split_arguments(args: str) -> list[str]:
    """The whitespace-separated arguments in `args`; quotes get no special treatment."""
    return args.split()


def substitute(body: str, args: str, named: tuple[str, ...] = (), skill_dir: str = "") -> str:
    """`body` with `$ARGUMENTS`, `$ARGUMENTS[N]`, `$N` (zero-based), the `named` arguments' `$name`
    and `${CLAUDE_SKILL_DIR}` replaced; missing arguments become empty. When `body` has no argument
    placeholder and `args` is not blank, `ARGUMENTS: <args>` is appended instead."""
    substitution = _Substitution(args, named, skill_dir)
    text = substitution.apply(body)
    if substitution.needs_appended_arguments(body):
        text += substitution.appended()
    return text


def render(skill: Skill, args: str, workspace_cwd: Path, append_arguments: bool = True) -> str:
    """The text that loads `skill` into a conversation: the location header, a blank line, then its
    body with arguments substituted and every `!`command`` replaced by the command's output.
    `append_arguments=False` skips the `ARGUMENTS: <args>` line for bodies without placeholders."""
    body = skill.body()
    substitution = _Substitution(args, skill.arguments, str(skill.folder))
    pieces = []
    done = 0
    # Commands are found in the body as written, so argument text can never start a command;
    # placeholders inside a command are substituted before it runs.
    for match in _COMMAND.finditer(body):
        pieces.append(substitution.apply(body[done:match.start()]))
        pieces.append(run_command(substitution.apply(match.group(1)), skill.folder))
        done = match.end()
    pieces.append(substitution.apply(body[done:]))
    if append_arguments and substitution.needs_appended_arguments(body):
        pieces.append(substitution.appended())
    header = HEADER.format(name=skill.name, location=_location(skill.folder, workspace_cwd))
    return f"{header}\n\n{''.join(pieces)}"


def run_command(command: str, folder: Path) -> str:
    """The stripped stdout of `bash -c command` run in `folder`, or a `[command failed ...]` line
    followed by its stderr when it exits non-zero or times out."""
    try:
        outcome = run_shell(command, folder, COMMAND_TIMEOUT_S, COMMAND_OUTPUT_LIMIT)
    except OSError as error:
        return f"[command failed (cannot start bash: {error.strerror or error}): {command}]"
    if outcome.code == 0:
        return outcome.stdout.strip()
    reason = f"timed out after {COMMAND_TIMEOUT_S} s" if outcome.code is None else f"exit {outcome.code}"
    report = f"[command failed ({reason}): {command}]"
    details = outcome.stderr.strip()
    return f"{report}\n{details}" if details else report


def _location(folder: Path, workspace_cwd: Path) -> str:
    """`folder` relative to the workspace when it is inside it, otherwise absolute."""
    for base, target in ((workspace_cwd, folder), (_real(workspace_cwd), _real(folder))):
        try:
            return str(Path(target).relative_to(base))
        except ValueError:
            continue
    return str(folder)


def _real(path: Path) -> Path:
    try:
        return Path(path).resolve()
    except (OSError, RuntimeError):
        return Path(path)
