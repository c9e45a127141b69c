"""Request bodies checked against the official SDKs' own request types, strictly.

`anthropic`'s MessageCreateParams and `openai`'s CompletionCreateParams are TypedDicts; pydantic
validates them, but with two gaps that would let almost anything pass: fields typed `Iterable`
(messages, content blocks, tools) are checked only when iterated, and keys a TypedDict does not
name are dropped without a word. `problems` closes both: it iterates everything the validator
returns, then compares it with the body, so an unknown key anywhere is reported by its path.
The SDKs are test-only dependencies; the agent itself never imports them.
"""

from __future__ import annotations

import collections.abc
import functools
import re
from typing import Any

from pydantic import TypeAdapter, ValidationError

# Keys OpenRouter documents on top of OpenAI's chat completions: prompt-caching breakpoints
# (top level and on content parts), its `reasoning` parameter, and `reasoning_details` sent back
# on an assistant message. Each pattern is a whole path.
OPENROUTER_EXTENSIONS = [
    r"cache_control",
    r"reasoning",
    r"messages\[\d+\]\.content\[\d+\]\.cache_control",
    r"plugins",  # the web plugin WebSearch asks for (openrouter.ai/docs, web search)
]
REASONING_DETAILS = re.compile(r"messages\[(\d+)\]\.reasoning_details")


@functools.lru_cache(maxsize=None)
def adapter(wire: str, streaming: bool = False) -> TypeAdapter:
    """The SDK request type for `wire` ("messages" or "chat"), streaming or not."""
    if wire == "messages":
        from anthropic.types import message_create_params as params

        return TypeAdapter(params.MessageCreateParamsStreaming if streaming else params.MessageCreateParamsNonStreaming)
    from openai.types.chat import completion_create_params as params

    return TypeAdapter(params.CompletionCreateParamsStreaming if streaming else params.CompletionCreateParamsNonStreaming)


def materialise(value: Any) -> Any:
    """`value` with every lazily validated iterable run to the end, which is when its items are
    validated (a ValidationError then)."""
    if isinstance(value, dict):
        return {key: materialise(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)) or isinstance(value, collections.abc.Iterator):
        return [materialise(item) for item in value]
    return value


def dropped_keys(sent: Any, kept: Any, path: str = "") -> list[str]:
    """The paths of keys in `sent` that validation did not keep: keys the type does not know."""
    found: list[str] = []
    if isinstance(sent, dict) and isinstance(kept, dict):
        for key, value in sent.items():
            where = f"{path}.{key}" if path else key
            if key not in kept:
                found.append(where)
            else:
                found.extend(dropped_keys(value, kept[key], where))
    elif isinstance(sent, list) and isinstance(kept, list):
        for index, (value, copy) in enumerate(zip(sent, kept)):
            found.extend(dropped_keys(value, copy, f"{path}[{index}]"))
    return found


def problems(body: dict, wire: str) -> list[str]:
    """Why `body` is not a valid request of `wire` by the SDK's types (empty when it is):
    validation errors, then unknown keys that are not documented OpenRouter extensions."""
    body, found = _beta_fields_checked(body) if wire == "messages" else (body, [])
    if wire == "messages":
        body, found = _temperature_checked(body, found)
    try:
        kept = materialise(adapter(wire, body.get("stream") is True).validate_python(body, strict=True))
    except ValidationError as exc:
        return found + [f"{'.'.join(map(str, error['loc']))}: {error['msg']}" for error in exc.errors()[:5]]
    return found + [
        f"{path}: not a field of the {wire} request type"
        for path in dropped_keys(body, kept)
        if not (wire == "chat" and _documented_by_openrouter(path, body))
    ]


def _temperature_checked(body: dict, found: list[str]) -> tuple[dict, list[str]]:
    """`body` less `temperature`, which the Messages API takes and Claude Code 2.1.332 sends (1, in
    its WebFetch and WebSearch requests) though the SDK's types no longer list it; it must be a
    number from 0 to 1."""
    if "temperature" not in body:
        return body, found
    value = body["temperature"]
    ok = isinstance(value, (int, float)) and not isinstance(value, bool) and 0 <= value <= 1
    return ({key: item for key, item in body.items() if key != "temperature"},
            found + ([] if ok else [f"temperature: {value!r} is not a number from 0 to 1"]))


def _beta_fields_checked(body: dict) -> tuple[dict, list[str]]:
    """`body` less the fields only a beta header makes valid (--task-budget's
    output_config.task_budget), and what is wrong with them by the SDK's beta types."""
    config = body.get("output_config")
    if not isinstance(config, dict) or "task_budget" not in config:
        return body, []
    from anthropic.types.beta.beta_token_task_budget_param import BetaTokenTaskBudgetParam

    rest = {key: value for key, value in config.items() if key != "task_budget"}
    body = {key: value for key, value in body.items() if key != "output_config"} | ({"output_config": rest} if rest else {})
    try:
        kept = TypeAdapter(BetaTokenTaskBudgetParam).validate_python(config["task_budget"], strict=True)
    except ValidationError as exc:
        return body, [f"output_config.task_budget.{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors()[:5]]
    return body, [f"output_config.task_budget.{path}: not a field of the beta type"
                  for path in dropped_keys(config["task_budget"], kept)]


def _documented_by_openrouter(path: str, body: dict) -> bool:
    details = REASONING_DETAILS.fullmatch(path)
    if details:
        return body["messages"][int(details.group(1))].get("role") == "assistant"
    return any(re.fullmatch(pattern, path) for pattern in OPENROUTER_EXTENSIONS)
