"""What a tool is: a name, a description, a JSON schema and a function of (arguments, context)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable


class ToolError(Exception):
    """A failure the model should see as an error result; the loop goes on."""


@dataclass(frozen=True)
class Tool:
    """One tool offered to the model.

    `run(arguments, context)` returns the text the model sees. `context.workspace` resolves paths;
    tools that start subagents or load skills reach the running session through `context`.
    """

    name: str
    description: str
    parameters: dict[str, Any]
    run: Callable[[dict[str, Any], Any], str]
    read_only: bool = False
    parallel: bool = False  # consecutive calls of such tools in one reply run concurrently
    # the work is other agents' or a skill's (Agent, Skill): under --replay-tools such a tool still
    # runs, and what it starts is answered from the cassette; every other tool is answered itself
    delegates: bool = False
    # it changes only the session's own state (the todo list, its background agents): under
    # --replay-tools it still runs, in memory, so that state is as it was recorded, and the recorded
    # result is what the model is sent
    in_session: bool = False

    def schema(self) -> dict[str, Any]:
        """The provider-neutral definition sent to the model."""
        return {"name": self.name, "description": self.description, "parameters": self.parameters}


def object_schema(properties: dict[str, Any], required: list[str]) -> dict[str, Any]:
    """A JSON schema for an arguments object that rejects unknown keys."""
    return {
        "type": "object",
        "properties": properties,
        "required": required,
        "additionalProperties": False,
    }
