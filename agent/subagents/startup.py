"""What a new conversation's first message opens with before its task, as Claude Code 2.1.332 sends
it: for a subagent that has the Skill tool, the listing of the skills it may invoke; the CLAUDE.md
block; then the git status snapshot (`# gitStatus`, the session's, taken once when it started:
agent.processes.git_status).

The main conversation gets both; when the session runs as a custom agent with a prompt of its own
(--agent), it starts without the snapshot, and the agent's omitClaudeMd is ignored. A subagent gets
both too, except the built-in Explore and Plan (neither: research stays fast and cheap) and an
agent whose definition says omitClaudeMd (no CLAUDE.md). Which agents get the snapshot cannot be
chosen otherwise.
"""

from __future__ import annotations

from agent.skills.catalog import SHORTENED_NOTE
from agent.subagents.definitions import AgentDefinition

CONTEXT_INTRO = "As you answer the user's questions, you can use the following context:"
CONTEXT_NOTE = ("This context was attached automatically; it isn't part of the user's message. It describes the "
                "user's own workspace, so they don't need it reported back.")
SKILLS_INTRO = "The following skills are available for use with the Skill tool:"


def main_context(session) -> tuple[str, ...]:
    """The context blocks the main conversation's first message opens with."""
    definition = session.session_agent
    own_prompt = definition is not None and definition.source != "builtin" and _has_prompt(definition)
    return _present(session.memory, None if own_prompt else git_block(session.git_status))


def subagent_context(session, definition: AgentDefinition, skills: str | None, git_status) -> tuple[str, ...]:
    """The context blocks a subagent running `definition` opens its first message with: the
    `skills` listing when it has the Skill tool (`skill_listing`), CLAUDE.md, and the `git_status`
    snapshot (the session's, or a worktree agent's own; None: none)."""
    return _present(skills, None if definition.omit_claude_md else session.memory,
                    None if definition.omit_git_status else git_block(git_status))


def skill_listing(session) -> str | None:
    """The block listing the skills a subagent with the Skill tool may invoke, as Claude Code gives
    it one (the main conversation has them in its system prompt): the session's catalog lines,
    fitted to the same budget; None when there are none. A forked skill's agent gets none."""
    catalogs = session.catalogs
    lines = list(catalogs.skill_lines)
    if not lines:
        return None
    note = [SHORTENED_NOTE.format(tool="Skill")] if catalogs.shortened else []
    return "\n".join(["<system-reminder>", SKILLS_INTRO, "", *lines, *note, "</system-reminder>"])


def git_block(snapshot) -> str | None:
    """The `# gitStatus` block of `snapshot` (an agent.processes.git_status.GitStatus), or None
    without one. A commit subject or file name cannot close the block and pose as the harness:
    its closing tag is neutralised."""
    if snapshot is None:
        return None
    text = snapshot.text().replace("</system-reminder", "<\\/system-reminder")
    return f"<system-reminder>\n{CONTEXT_INTRO}\n# gitStatus\n{text}\n\n{CONTEXT_NOTE}\n</system-reminder>"


def _present(*blocks: str | None) -> tuple[str, ...]:
    return tuple(block for block in blocks if block)


def _has_prompt(definition: AgentDefinition) -> bool:
    """Whether the agent has a system prompt of its own (an unreadable file counts as none: the
    session stops on it when it builds the main prompt)."""
    try:
        return bool(definition.prompt)
    except OSError:
        return False
