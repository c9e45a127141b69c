"""--json-schema: the StructuredOutput tool, offered to the main conversation with the user's schema
as its input schema, verbatim, and Claude Code's description. The model's call with an object that
fits is the run's answer (`delivered`); one that does not gets Claude Code's error and the model
tries again. A reply in text only is answered once with Claude Code's reminder (`ENFORCE`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from agent.tools.base import Tool, ToolError

NAME = "StructuredOutput"
DESCRIPTION = ("Use this tool to return your final response in the requested structured format. You MUST call this "
               "tool exactly once at the end of your response to provide the structured output.")
PROVIDED = "Structured output provided successfully"
ENFORCE = ("[structured-output-enforce] You MUST call the StructuredOutput tool to complete this request. "
           "Call this tool now.")


@dataclass(frozen=True)
class StructuredOutputTool(Tool):
    """The tool whose input schema is the user's. It checks its arguments itself (against the whole
    schema, in Claude Code's words), so the executor's own check sees an open `parameters`."""

    input_schema: dict[str, Any] = field(default_factory=dict)

    def schema(self) -> dict[str, Any]:
        return {"name": self.name, "description": self.description, "parameters": self.input_schema}


def structured_output_tool(schema: dict[str, Any]) -> Tool:
    """The StructuredOutput tool for `schema` (checked already: agent.tools.json_schema.schema_problem)."""
    def run(arguments: dict[str, Any], context: Any) -> str:
        from agent.tools.json_schema import output_problems  # jsonschema: only for runs given --json-schema

        problems = output_problems(schema, arguments)
        if problems:
            raise ToolError("Output does not match required schema: " + ", ".join(problems))
        return PROVIDED

    return StructuredOutputTool(NAME, DESCRIPTION, {}, run, read_only=True, input_schema=schema)


def offered(tools: dict[str, Tool]) -> bool:
    """Whether an agent with `tools` is asked for structured output."""
    return isinstance(tools.get(NAME), StructuredOutputTool)


def delivered(calls: list, results: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The object of the reply's StructuredOutput call that was accepted, or None."""
    for call, result in zip(calls, results):
        if call.name == NAME and not result.get("is_error"):
            return call.arguments
    return None


def compact(value: Any) -> str:
    """The structured output as the result's text: compact JSON, as Claude Code prints it."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))
