"""JSON Schema for --json-schema: whether a schema is one (`schema_problem`) and why a value does not
fit it (`output_problems`), each problem in the words of Claude Code's validator (ajv):
`root: must have required property 'population'`, `/address/city: must be string`.

The validation is jsonschema's (draft 7, ajv's default draft): the MCP SDK, a dependency of ours,
depends on it, and a schema's every keyword is checked (anyOf, $ref, ...), which a validator of
our own would only partly do. This module is imported only by a run given --json-schema. The
schema may come from a cassette someone else wrote, so: its regexes (pattern, patternProperties,
and the additionalProperties that depends on them) are matched by RE2, in time linear in the text;
a $ref is resolved only inside the schema, never fetched; a reference loop is an error, not a hang.
"""

from __future__ import annotations

import functools
import json
from typing import Any, Callable

import jsonschema
import re2
import referencing
import referencing.exceptions
import referencing.jsonschema
from jsonschema.exceptions import ValidationError, best_match

MAX_PROBLEMS = 50  # listed in one tool result; the rest are counted
_DATA_KEYWORDS = ("enum", "const", "default", "examples")  # values there are data, not schemas


def _number(value: Any) -> str:
    return json.dumps(value)


# ajv's message for each keyword whose failure is the value's own (not a part's, found further down)
_WORDING: dict[str, Callable[[Any], str]] = {
    "type": lambda types: f"must be {','.join(types) if isinstance(types, list) else types}",
    "enum": lambda _: "must be equal to one of the allowed values",
    "const": lambda _: "must be equal to constant",
    "minimum": lambda limit: f"must be >= {_number(limit)}",
    "maximum": lambda limit: f"must be <= {_number(limit)}",
    "exclusiveMinimum": lambda limit: f"must be > {_number(limit)}",
    "exclusiveMaximum": lambda limit: f"must be < {_number(limit)}",
    "multipleOf": lambda step: f"must be multiple of {_number(step)}",
    "minLength": lambda n: f"must NOT have fewer than {n} characters",
    "maxLength": lambda n: f"must NOT have more than {n} characters",
    "minItems": lambda n: f"must NOT have fewer than {n} items",
    "maxItems": lambda n: f"must NOT have more than {n} items",
    "minProperties": lambda n: f"must NOT have fewer than {n} properties",
    "maxProperties": lambda n: f"must NOT have more than {n} properties",
    "uniqueItems": lambda _: "must NOT have duplicate items",
    "anyOf": lambda _: "must match a schema in anyOf",
    "oneOf": lambda _: "must match exactly one schema in oneOf",
    "not": lambda _: "must NOT be valid",
    "contains": lambda _: "must contain at least 1 valid item(s)",
}


def schema_problem(schema: Any) -> str | None:
    """Why `schema` (an object) is not a JSON Schema this agent can check values against, or None."""
    meta = jsonschema.Draft7Validator(jsonschema.Draft7Validator.META_SCHEMA)
    error = best_match(meta.iter_errors(schema))
    if error is not None:
        where = "/".join(str(part) for part in error.absolute_path)
        return f"{where}: {error.message}" if where else error.message
    resolver = referencing.Registry().resolver_with_root(referencing.jsonschema.DRAFT7.create_resource(schema))
    for key, value in _keywords(schema):
        if key == "$ref" and isinstance(value, str):
            try:
                resolver.lookup(value)
            except referencing.exceptions.Unresolvable:
                return f"$ref {value[:200]!r} cannot be resolved (only references inside the schema are followed)"
        patterns = [value] if key == "pattern" and isinstance(value, str) else \
            list(value) if key == "patternProperties" and isinstance(value, dict) else []
        for pattern in patterns:
            try:
                _regex(pattern)
            except re2.error as error:
                return f"the pattern {pattern[:200]!r} is not one RE2 can match: {_reason(error)}"
    return None


def output_problems(schema: dict[str, Any], value: Any) -> list[str]:
    """Why `value` does not fit `schema` (checked by `schema_problem` first), in ajv's words, one
    entry per problem; empty when it fits."""
    validator = _validator_class()(schema, registry=referencing.Registry())
    problems: list[str] = []
    try:
        for count, error in enumerate(validator.iter_errors(value)):
            if count == MAX_PROBLEMS:
                problems.append("and more")
                break
            problems.append(f"{_pointer(error.absolute_path)}: {error.message}")
    except RecursionError:
        problems.append("root: the schema's references loop without end")
    except referencing.exceptions.Unresolvable as error:
        problems.append(f"root: a $ref of the schema cannot be resolved: {str(error)[:200]}")
    return problems


def _pointer(path) -> str:
    """A value's place as ajv's instancePath says it (a JSON pointer), `root` for the value itself."""
    parts = [str(part).replace("~", "~0").replace("/", "~1") for part in path]
    return "/" + "/".join(parts) if parts else "root"


def _keywords(schema: Any):
    """Every (key, value) of every object in `schema`, less the data ones (enum, const, ...);
    walked without recursion."""
    stack = [schema]
    while stack:
        item = stack.pop()
        pairs = item.items() if isinstance(item, dict) else enumerate(item) if isinstance(item, list) else ()
        for key, value in pairs:
            if isinstance(item, dict):
                yield key, value
                if key in _DATA_KEYWORDS:
                    continue
            if isinstance(value, (dict, list)):
                stack.append(value)


@functools.lru_cache(maxsize=256)
def _regex(pattern: str):
    options = re2.Options()
    options.log_errors = False
    return re2.compile(pattern, options=options)


def _reason(error: Exception) -> str:
    first = error.args[0] if error.args else error
    return first.decode(errors="replace") if isinstance(first, bytes) else str(first)


def _worded(check: Callable, wording: Callable[[Any], str]) -> Callable:
    """A keyword's check whose errors say what ajv's would."""
    def worded(validator, expected, instance, schema):
        for error in check(validator, expected, instance, schema):
            error.message = wording(expected)
            yield error
    return worded


def _required(validator, required, instance, schema):
    if validator.is_type(instance, "object"):
        for name in required:
            if name not in instance:
                yield ValidationError(f"must have required property '{name}'")


def _pattern(validator, pattern, instance, schema):
    if validator.is_type(instance, "string") and not _regex(pattern).search(instance):
        yield ValidationError(f'must match pattern "{pattern}"')


def _pattern_properties(validator, patterns, instance, schema):
    if validator.is_type(instance, "object"):
        for pattern, subschema in patterns.items():
            for name, value in instance.items():
                if _regex(pattern).search(name):
                    yield from validator.descend(value, subschema, path=name, schema_path=pattern)


def _additional_properties(validator, allowed, instance, schema):
    if not validator.is_type(instance, "object"):
        return
    named, patterns = schema.get("properties", {}), schema.get("patternProperties", {})
    extras = [name for name in instance if name not in named and not any(_regex(p).search(name) for p in patterns)]
    for name in extras:
        if validator.is_type(allowed, "object"):
            yield from validator.descend(instance[name], allowed, path=name)
        elif allowed is False:
            yield ValidationError("must NOT have additional properties")


@functools.cache
def _validator_class():
    """Draft 7 with ajv's wording and RE2's regexes."""
    base = jsonschema.Draft7Validator
    checks = {keyword: _worded(base.VALIDATORS[keyword], wording) for keyword, wording in _WORDING.items()}
    checks.update(required=_required, pattern=_pattern, patternProperties=_pattern_properties,
                  additionalProperties=_additional_properties)
    return jsonschema.validators.extend(base, checks)
