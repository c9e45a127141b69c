"""The flags that bound a run and shape its answer: --max-budget-usd, --fallback-model and
--json-schema. Each is checked once the session's model is known (a bad value is one line and exit
2 before any request, in Claude Code's words where it has them) and put on the session, where the
loop reads it (`agent.loop.run_loop`). A replay takes them from its cassette, as other shaping
options (`agent.cli.replay.SHAPING_OPTIONS`), so they are checked the same way there."""

from __future__ import annotations

import argparse
from typing import Any

from agent.errors import UsageError
from agent.model.budget import Budget, BudgetError, parse_usd, unpriced
from agent.model.providers import resolve_model
from agent.workspace import load_json


def apply_run_controls(args: argparse.Namespace, session) -> None:
    """Check the three flags of `args` and set `session.budget`, `.fallback_models` (--fallback-model's
    comma-separated chain, in order, as Claude Code takes it) and `.json_schema`."""
    names = [name.strip() for name in (args.fallback_model or "").split(",") if name.strip()]
    fallbacks = tuple(dict.fromkeys(resolve_model([name], session.model_aliases, session.model) for name in names))
    if session.model in fallbacks:
        raise UsageError("Fallback model cannot be the same as the main model. Please specify a different model "
                         "for --fallback-model.")
    if args.max_budget_usd is not None:
        try:
            session.budget = Budget(parse_usd(args.max_budget_usd))
        except BudgetError as error:
            raise UsageError(str(error)) from None
        # fail closed: a budget that cannot be checked would let the run spend without limit
        if missing := unpriced([session.model, *fallbacks]):
            raise UsageError(f"--max-budget-usd cannot be enforced: no price is known for {', '.join(missing)} "
                             "(agent/model/pricing.py lists the models it can price)")
    session.fallback_models = fallbacks
    if args.json_schema:
        session.json_schema = checked_schema(args.json_schema)


def checked_schema(text: str) -> dict[str, Any]:
    """The schema of `--json-schema TEXT`: a JSON object that is a JSON Schema, else a UsageError."""
    try:
        schema = load_json(text, "--json-schema")
    except ValueError as error:
        raise UsageError(f"--json-schema is not valid JSON: {error}") from None
    if not isinstance(schema, dict):
        raise UsageError("--json-schema must be a JSON object")
    from agent.tools.json_schema import schema_problem  # jsonschema: only for runs given --json-schema

    if problem := schema_problem(schema):
        raise UsageError(f"--json-schema is not a valid JSON Schema: {problem}")
    return schema
