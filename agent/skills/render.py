"""Turning a skill into the text the model reads: a header saying where the skill's folder is,
then the body with its arguments substituted (`arguments`) and every `!`command`` replaced by
its output (`commands`). Slash commands, the Skill tool, forks and preloaded skills all render
through `render`."""

from __future__ import annotations

from pathlib import Path

from agent.skills.arguments import Substitution
from agent.skills.commands import CommandContext, command_output, find_commands
from agent.skills.discovery import Skill

HEADER = ("Skill: {name} (located at {location})\n"
          "Paths in the instructions below are relative to that folder.")


def render(skill: Skill, args: str, context: CommandContext, append_arguments: bool = True) -> str:
    """The text that loads `skill` into a conversation: the location header, a blank line, then its
    body with arguments substituted and every `!`command`` replaced by the command's output (or a
    note saying why it did not run). `append_arguments=False` skips the `ARGUMENTS: <args>` line
    for bodies without placeholders."""
    body = skill.body()
    substitution = Substitution(args, skill.arguments, str(skill.folder), str(context.cwd))
    rules = skill.allowed_rules(str(context.cwd))
    pieces = []
    done = 0
    # Commands are found in the body as written, so argument text can never start a command;
    # placeholders inside a command are substituted shell-quoted before it is checked and run.
    for start, end, command in find_commands(body):
        pieces.append(substitution.apply(body[done:start]))
        pieces.append(command_output(substitution.apply_in_command(command), rules, context))
        done = end
    pieces.append(substitution.apply(body[done:]))
    if append_arguments and substitution.needs_appended_arguments(body):
        pieces.append(substitution.appended())
    header = HEADER.format(name=skill.name, location=_location(skill.folder, context.cwd))
    return f"{header}\n\n{''.join(pieces)}"


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
