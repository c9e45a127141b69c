"""`@agent-<name>` and `@"<name> (agent)"` in a prompt: that agent does the task.

The whole prompt still reaches the main model, which writes the agent's task; the mention decides
which agent runs (the subagents page's words), not its prompt. The model is told in Claude Code's
own reminder, and its Agent calls are routed: until each mentioned agent has run, a call for
another type (or none) runs the next mentioned one instead, and its result says so, so a model
that picks general-purpose anyway still gets the agent the user named. A deny rule for the
mentioned agent refuses the routed call as it would the model's own.
"""

from __future__ import annotations

import dataclasses
import re
import threading
from typing import Any, Collection

from agent.loop import AgentSpec
from agent.tools.base import ToolError

_AT_AGENT = re.compile(r"(?:^|(?<=\s))@agent-(\S+)")
_QUOTED = re.compile(r"(?:^|(?<=\s))@\"([^\"\n]{1,256}) \(agent\)\"")
_TRAILING = ".,;:!?)]}'\""  # punctuation after a mention, not part of the name
DEFAULT_TYPE = "general-purpose"


def mentionable(session: Any) -> list[str]:
    """The agent types the main conversation may start, which a mention can name: all the
    session's, or those its agent's `tools: Agent(a, b)` lists."""
    definition = session.session_agent
    types = definition.spawnable_types if definition is not None else None
    return [name for name in session.agents if types is None or name in types]


def mentioned_agents(prompt: str, names: Collection[str]) -> list[str]:
    """The agents of `names` that `prompt` mentions, in the order it first mentions them; a
    mention of anything else is left as text."""
    found: list[tuple[int, str]] = []
    for match in _AT_AGENT.finditer(prompt):
        found.append((match.start(), match.group(1).rstrip(_TRAILING)))
    for match in _QUOTED.finditer(prompt):
        found.append((match.start(), match.group(1).strip()))
    return list(dict.fromkeys(name for _, name in sorted(found) if name in names))


def mention_reminder(name: str) -> str:
    """What Claude Code tells the model when the user mentions the agent `name`."""
    return (f"<system-reminder>\nThe user has expressed a desire to invoke the agent \"{name}\". Please invoke "
            "the agent appropriately, passing in the required context to it.\n</system-reminder>")


def routed(agent: AgentSpec, names: list[str]) -> AgentSpec:
    """`agent` for one turn whose prompt mentions the agents `names`: its Agent tool runs them
    (see the module's docstring). The tool's name, description and schema are unchanged, so the
    requests are those of an unrouted turn."""
    tool = agent.tools.get("Agent")
    if not names or tool is None:
        return agent
    pending, lock = list(names), threading.Lock()
    run = tool.run

    def run_routed(arguments: dict[str, Any], context) -> str:
        if not isinstance(arguments.get("prompt"), str):  # a search of the types, or a call that fails anyway
            return run(arguments, context)
        asked = (arguments.get("subagent_type") or DEFAULT_TYPE).strip()
        with lock:  # parallel calls in one reply each take a different mentioned agent
            target = None if asked in pending or not pending else pending.pop(0)
            if asked in pending:
                pending.remove(asked)
        if target is None:
            return run(arguments, context)
        changed = {**arguments, "subagent_type": target}
        policy = context.agent.policy
        decision = policy.check("Agent", changed, False) if policy is not None else None
        if decision is not None and not decision.allowed and decision.kind == "deny":
            raise ToolError(decision.reason)
        note = (f"(The user's @-mention asked for the {target} agent, so this call ran {target} "
                f"instead of {asked}.)\n\n")
        return note + run(changed, context)

    tools = {**agent.tools, "Agent": dataclasses.replace(tool, run=run_routed)}
    return dataclasses.replace(agent, tools=tools)
