"""Property tests (Hypothesis): whatever text, arguments or JSON arrive, the parsers, the wire
translation and the tools either give a result or raise one of our own error types, never anything
else. Every test is derandomized and bounded, so the whole file is deterministic and runs in seconds.
"""

from __future__ import annotations

import json
import logging
import os
import re
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from agent.subagents.definitions import AgentDefinition
from agent.subagents.discovery import read_agent
from agent.conversation import Reply, ToolCall, tool_result, user_message
from agent.errors import AgentError, ProviderError
from agent.skills.frontmatter import FrontmatterError
from agent.session import Session
from agent.skills.arguments import split_arguments, substitute
from agent.skills.discovery import Skill, SkillError, read_skill
from agent.skills.slash import MAX_STACKED_SKILLS, parse_slash
from agent.tools import builtin_tools
from agent.tools.execute import by_name, execute
from agent.model.wire import chat, messages
from agent.workspace import Workspace


def bounded(examples: int):
    """Deterministic, fast Hypothesis settings (no example database, so no stray .hypothesis folder)."""
    return settings(max_examples=examples, deadline=None, derandomize=True, database=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])


@pytest.fixture(autouse=True)
def _quiet_agent_log():
    # read_skill/read_agent log ignored fields; thousands of examples should not flood the output.
    logger = logging.getLogger("agent")
    level, logger.level = logger.level, logging.CRITICAL
    yield
    logger.setLevel(level)


# --- strategies ----------------------------------------------------------------------------------

json_scalars = (st.none() | st.booleans() | st.integers(-(2**63), 2**63)
                | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=20))
json_values = st.recursive(
    json_scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12,
)
json_objects = st.dictionaries(st.text(max_size=8), json_values, max_size=5)


def either(shaped):
    """The expected shape, or any JSON value in its place."""
    return st.one_of(shaped, json_values)


def mostly(shaped):
    """Usually the expected shape, sometimes any JSON value: deep parts of a body are reached too."""
    return st.integers(0, 3).flatmap(lambda pick: shaped if pick else json_values)


# YAML-ish text: the characters and words YAML gives meaning to, plus the fields we read.
YAML_KEYS = ["name", "description", "tools", "disallowedTools", "model", "maxTurns", "skills", "arguments",
             "argument-hint", "allowed-tools", "context", "agent", "user-invocable",
             "disable-model-invocation", "when_to_use", "<<", "? ", "- "]
YAML_PIECES = [":", " ", "\n", "  ", "-", "[", "]", "{", "}", ",", "'", '"', "&a", "*a", "!!python/object", "!!binary",
               "|", ">", "#", "%YAML 1.1", "---", "...", "?", "~", "null", "yes", "no", "on", "1e9999", ".inf",
               "2024-13-45", "0x1F", "\t", "\r", "\x00", "\ufeff", "é", "\x85", "\u2028", "=", "@", "`"]
yaml_scalars = st.lists(st.sampled_from(YAML_PIECES) | st.text(max_size=5), max_size=8).map("".join)
yaml_lines = st.one_of(
    st.tuples(st.sampled_from(YAML_KEYS) | st.text(max_size=6), yaml_scalars).map(lambda kv: f"{kv[0]}: {kv[1]}"),
    yaml_scalars,
)
yaml_texts = st.lists(yaml_lines, max_size=8).map("\n".join)
# Valid YAML whose fields hold any JSON value, so the coercion of every field we read is exercised.
FIELD_NAMES = [key for key in YAML_KEYS if key[0].isalpha()]
yaml_mappings = st.dictionaries(st.sampled_from(FIELD_NAMES), json_values, max_size=6).map(
    lambda fields: yaml.safe_dump({"name": "x", "description": "d", **fields}, allow_unicode=True))
definition_texts = st.one_of(
    st.tuples(yaml_mappings, st.text(max_size=20)).map(lambda parts: f"---\n{parts[0]}---\n{parts[1]}"),
    st.text(),
    st.tuples(yaml_texts, st.text(max_size=40)).map(lambda parts: f"---\n{parts[0]}\n---\n{parts[1]}"),
    # a plausible head followed by YAML-ish noise, so the later field checks are reached too
    st.tuples(yaml_texts, st.text(max_size=40)).map(
        lambda parts: f"---\nname: x\ndescription: d\n{parts[0]}\n---\n{parts[1]}"),
)


# --- frontmatter -----------------------------------------------------------------------------------

@bounded(250)
@given(definition_texts)
@example("---\nname: x\ndescription: " + "9" * 5000 + "\n---\nbody")  # an int too long to print
@example("---\n" + "[" * 5000 + "\n---\n")  # nesting deeper than the recursion limit
@example("---\na: &a [*a]\ndescription: *a\ntools: *a\nskills: *a\n---\n")  # a self-containing list
@example("---\n? [a]\n: b\n---\n")  # an unhashable key
def test_read_skill_gives_a_skill_or_a_skill_error(text):
    try:
        skill = read_skill(text, Path("/skills/demo"))
    except SkillError:
        return
    assert isinstance(skill, Skill) and skill.name == "demo" and skill.description


@bounded(250)
@given(definition_texts)
@example("---\nname: x\ndescription: d\nmaxTurns: " + "9" * 5000 + "\n---\n")
@example("---\nname: x\ndescription: d\ntools: {a: 1}\n---\n")
@example("---\nname: [x]\ndescription: d\n---\n")
def test_read_agent_gives_a_definition_or_a_frontmatter_error(text):
    try:
        definition = read_agent(text, Path("/agents/demo.md"))
    except FrontmatterError:
        return
    assert isinstance(definition, AgentDefinition) and definition.name and definition.description


# --- argument substitution -------------------------------------------------------------------------

BODY_PIECES = ["$", "$0", "$1", "$12", "$ARGUMENTS", "$ARGUMENTS[", "$ARGUMENTS[0]", "$ARGUMENTS[1]", "$ARGUMENTSx",
               "$name", "$names", "$file", "${CLAUDE_SKILL_DIR}", "${", "}", "[", "]", "{", "}", "0", "9", " ", "\n",
               "\\", "$$", "\\1", "\\g<0>"]
bodies = st.lists(st.sampled_from(BODY_PIECES) | st.text(max_size=4), max_size=12).map("".join)
argument_texts = st.lists(st.sampled_from(BODY_PIECES + ["a", "b c", "\t"]) | st.text(max_size=4), max_size=8).map("".join)
names = st.lists(st.from_regex(r"[A-Za-z_][A-Za-z0-9_-]{0,6}", fullmatch=True).filter(lambda n: not n.startswith("ARGUMENTS")),
                max_size=3, unique=True).map(tuple)
words = st.text(min_size=1, max_size=8).filter(
    lambda word: not set(word) & set("\"'\\") and split_arguments(word) == [word])


@bounded(300)
@given(bodies, argument_texts, names, st.text(max_size=10))
def test_substitute_returns_text(body, args, named, skill_dir):
    assert isinstance(substitute(body, args, named, skill_dir), str)


@pytest.mark.parametrize("placeholder", ["${digits}", "$ARGUMENTS[{digits}]"])
def test_a_position_too_long_for_an_int_is_still_text(placeholder):
    """Python refuses to convert more than 4300 digits to an int; a SKILL.md may hold such a run."""
    body = placeholder.format(digits="1" * 5000)
    assert isinstance(substitute(body, "a b"), str)


@bounded(200)
@given(st.text().filter(lambda body: "$" not in body), st.sampled_from(["", " ", "\t\n"]))
def test_a_body_without_placeholders_and_no_arguments_comes_back_unchanged(body, blank):
    assert substitute(body, blank) == body


@bounded(300)
@given(st.text().filter(lambda body: "\\" not in body and "$ARGUMENTS" not in body and "${CLAUDE_" not in body))
def test_without_arguments_a_body_of_prices_and_fields_comes_back_unchanged(body):
    """No argument can fill a bare `$N`, so only the explicit forms could change a body."""
    assert substitute(body, "") == body


@bounded(200)
@given(words, words)
def test_positions_count_from_zero(first, second):
    args = f"{first} {second}"
    assert substitute("$0", "a b") == "a"
    assert substitute("$0", args) == first
    assert substitute("$1|$ARGUMENTS[0]|$2.", args) == f"{second}|{first}|$2."
    assert substitute("$ARGUMENTS", args) == args


@bounded(300)
@given(argument_texts, names)
@example("$1 x", ())
@example("$ARGUMENTS ${CLAUDE_SKILL_DIR} $name", ("name",))
def test_argument_values_are_never_rescanned(args, named):
    assert substitute("$0", "$1 x") == "$1"
    assert substitute("$ARGUMENTS", args, named, "/skill") == args.strip(" \t\r\n")
    positional = split_arguments(args)
    assert substitute("$0", args, named, "/skill") == (positional[0] if positional else "$0")
    if named:
        assert substitute(f"${named[0]}", args, named, "/skill") == (positional[0] if positional else "")


# --- slash commands --------------------------------------------------------------------------------

SKILLS = {
    "alpha": Skill("alpha", "first"),
    "beta": Skill("beta", "second"),
    "fork": Skill("fork", "forked", fork=True),
    "hidden": Skill("hidden", "model only", user_invocable=False),
    "a-b_c": Skill("a-b_c", "odd name"),
}
TOKENS = ["/alpha", "/beta", "/fork", "/hidden", "/a-b_c", "/nope", "/", "//alpha", "/alpha/beta", "alpha", "-", "$0"]
loose_prompts = st.lists(
    st.one_of(st.sampled_from(TOKENS), st.text(max_size=6), st.sampled_from([" ", "\n", "\t", "\u3000", "\x1c", "\xa0"])),
    max_size=12,
).map("".join)
# Prompts that do start with skill commands, so the stacking rules are exercised too.
command_runs = st.lists(st.sampled_from(["/alpha", "/beta", "/fork", "/a-b_c", "/hidden"]), min_size=1, max_size=8)
prompts = loose_prompts | st.tuples(
    st.sampled_from(["", " ", "\n\t"]), command_runs.map(" ".join), st.sampled_from(["", " ", "\n"]), loose_prompts,
).map("".join)


@bounded(500)
@given(prompts)
def test_parse_slash_expands_only_known_skills_and_passes_a_suffix_as_arguments(prompt):
    invocation = parse_slash(prompt, SKILLS)
    if invocation is None:
        return
    assert 1 <= len(invocation.skills) <= MAX_STACKED_SKILLS
    for skill in invocation.skills:
        assert SKILLS.get(skill.name) is skill and skill.user_invocable
    assert not any(skill.fork for skill in invocation.skills[:-1]), "a forked skill must end the run"
    # The leading tokens are exactly the expanded skills...
    tokens = prompt.split()
    assert tokens[:len(invocation.skills)] == [f"/{skill.name}" for skill in invocation.skills]
    # ...and the argument text is the rest of the prompt, as typed (trailing whitespace aside).
    assert prompt.rstrip().endswith(invocation.arguments)
    assert invocation.arguments == invocation.arguments.strip()
    rest = tokens[len(invocation.skills):]
    assert invocation.arguments.split() == rest


# --- wire: decoding --------------------------------------------------------------------------------

def check_reply(reply: Reply) -> None:
    assert isinstance(reply, Reply) and isinstance(reply.text, str)
    for call in reply.tool_calls:
        assert isinstance(call.id, str) and isinstance(call.name, str)
        assert isinstance(call.arguments, dict)
        assert call.arguments_error is None or (isinstance(call.arguments_error, str) and call.arguments == {})
    assert isinstance(reply.usage.input_tokens, int) and isinstance(reply.usage.output_tokens, int)


def decoded_or_provider_error(decode, body) -> Reply | None:
    try:
        reply = decode(body)
    except ProviderError:
        return None
    check_reply(reply)
    return reply


def chat_completion(message: dict, usage=None) -> dict:
    body = {"id": "gen-1", "object": "chat.completion",
            "choices": [{"index": 0, "finish_reason": "tool_calls", "message": message}]}
    if usage is not None:
        body["usage"] = usage
    return body


argument_texts_on_the_wire = st.one_of(
    st.text(),
    json_values.map(json.dumps),
    json_objects.map(json.dumps),
    st.integers(1, 500).map(lambda depth: "[" * depth),
    st.integers(1, 500).map(lambda depth: '{"a":' * depth),
)


@bounded(300)
@given(argument_texts_on_the_wire)
@example('{"a": 1}')
def test_chat_tool_arguments_decode_to_a_dict_or_an_arguments_error(arguments):
    message = {"role": "assistant", "content": None, "tool_calls": [
        {"id": "call_1", "type": "function", "function": {"name": "Read", "arguments": arguments}}]}
    reply = chat.decode(chat_completion(message, {"prompt_tokens": 3, "completion_tokens": 4}))
    check_reply(reply)
    [call] = reply.tool_calls
    if call.arguments_error is None and arguments.strip():
        assert call.arguments == json.loads(arguments)


@pytest.mark.parametrize("arguments", ["[" * 100_000, '{"a": ' * 100_000, '{"a": ' + "1" * 5000 + "}"],
                         ids=["deep-array", "deep-object", "huge-int"])
def test_chat_tool_arguments_beyond_json_limits_are_an_arguments_error(arguments):
    """Nesting deeper than json's recursion limit, or an int too long to convert: the model gets an
    arguments error back, the run does not crash."""
    message = {"role": "assistant", "content": None, "tool_calls": [
        {"id": "call_1", "type": "function", "function": {"name": "Read", "arguments": arguments}}]}
    [call] = chat.decode(chat_completion(message)).tool_calls
    assert call.arguments == {} and call.arguments_error


@bounded(300)
@given(json_values)
def test_messages_tool_input_decodes_to_a_dict_or_an_arguments_error(value):
    body = {"type": "message", "role": "assistant", "stop_reason": "tool_use",
            "content": [{"type": "tool_use", "id": "toolu_1", "name": "Read", "input": value}],
            "usage": {"input_tokens": 3, "output_tokens": 4}}
    reply = messages.decode(body)
    check_reply(reply)
    [call] = reply.tool_calls
    assert (call.arguments == value) if isinstance(value, dict) else call.arguments_error


# Bodies of the right overall shape in which any part may be replaced by any JSON value.
chat_functions = st.fixed_dictionaries({}, optional={"name": mostly(st.sampled_from(["Read", "Bash", ""])),
                                                     "arguments": mostly(argument_texts_on_the_wire)})
chat_calls = st.fixed_dictionaries({"type": st.just("function")},
                                   optional={"id": mostly(st.text(max_size=6)), "function": mostly(chat_functions)})
chat_content = mostly(st.text(max_size=10)) | st.lists(mostly(st.fixed_dictionaries(
    {"type": st.just("text")}, optional={"text": mostly(st.text(max_size=10))})), max_size=3)
chat_messages = st.fixed_dictionaries({"role": st.just("assistant")}, optional={
    "content": chat_content, "tool_calls": mostly(st.lists(mostly(chat_calls), max_size=3))})
chat_choices = st.fixed_dictionaries({"index": st.just(0), "message": mostly(chat_messages)}, optional={
    "finish_reason": mostly(st.sampled_from(["stop", "tool_calls", "length", "error"]))})
token_counts = mostly(st.integers(0, 10**6))
chat_bodies = st.fixed_dictionaries({"id": st.just("gen-1"), "choices": mostly(st.lists(mostly(chat_choices), min_size=1, max_size=2))}, optional={
    "usage": mostly(st.fixed_dictionaries({}, optional={"prompt_tokens": token_counts, "completion_tokens": token_counts})),
    "error": st.one_of(st.none(), st.none(), st.just({}), json_values),
})
messages_blocks = st.one_of(
    st.fixed_dictionaries({"type": st.just("text")}, optional={"text": mostly(st.text(max_size=10))}),
    st.fixed_dictionaries({"type": st.just("tool_use")}, optional={
        "id": mostly(st.text(max_size=6)), "name": mostly(st.sampled_from(["Read", "Bash"])), "input": json_values}),
)
messages_bodies = st.fixed_dictionaries({"role": st.just("assistant"),
                                        "content": mostly(st.lists(mostly(messages_blocks), max_size=3))}, optional={
    "type": mostly(st.sampled_from(["message", "message", "error"])),
    "usage": mostly(st.fixed_dictionaries({}, optional={"input_tokens": token_counts, "output_tokens": token_counts})),
    "stop_reason": mostly(st.sampled_from(["end_turn", "tool_use"])),
    "error": st.one_of(st.none(), st.none(), st.just({}), json_values),
})


MALFORMED_CHAT_BODIES = {
    "message-not-an-object": {"choices": [{"message": "hi"}]},
    "usage-not-an-object": {"choices": [{"message": {"content": "hi"}}], "usage": [1]},
    "usage-count-not-a-number": {"choices": [{"message": {"content": "hi"}}], "usage": {"prompt_tokens": "many"}},
    "tool-calls-not-a-list": {"choices": [{"message": {"tool_calls": "Read"}}]},
    "tool-call-not-an-object": {"choices": [{"message": {"tool_calls": ["Read"]}}]},
    "function-not-an-object": {"choices": [{"message": {"tool_calls": [{"id": "c", "function": "Read"}]}}]},
    "content-part-text-not-text": {"choices": [{"message": {"content": [{"type": "text", "text": 5}]}}]},
}


@pytest.mark.parametrize("body", MALFORMED_CHAT_BODIES.values(), ids=MALFORMED_CHAT_BODIES.keys())
def test_a_malformed_chat_reply_is_a_provider_error_or_a_reply(body):
    decoded_or_provider_error(chat.decode, body)


@bounded(300)
@given(json_values | chat_bodies)
def test_chat_decode_gives_a_reply_or_a_provider_error(body):
    decoded_or_provider_error(chat.decode, body)


MALFORMED_MESSAGES_BODIES = {
    "usage-not-an-object": {"content": [], "usage": [1]},
    "usage-count-not-a-number": {"content": [], "usage": {"input_tokens": "many"}},
    "block-text-not-text": {"content": [{"type": "text", "text": {"a": 1}}]},
}


@pytest.mark.parametrize("body", MALFORMED_MESSAGES_BODIES.values(), ids=MALFORMED_MESSAGES_BODIES.keys())
def test_a_malformed_messages_reply_is_a_provider_error_or_a_reply(body):
    decoded_or_provider_error(messages.decode, body)


@bounded(200)
@given(json_values | messages_bodies)
def test_messages_decode_gives_a_reply_or_a_provider_error(body):
    decoded_or_provider_error(messages.decode, body)


# --- wire: encoding --------------------------------------------------------------------------------

TOOL_SCHEMAS = [tool.schema() for tool in builtin_tools()]


@st.composite
def conversations(draw) -> list[dict]:
    """A well-formed internal conversation: a user prompt, then assistant turns (text and tool_use
    blocks) each answered by tool results for every call, or by a user text."""
    conversation = [user_message(draw(st.text(max_size=30)))]
    for turn in range(draw(st.integers(0, 3))):
        blocks = []
        if draw(st.booleans()):
            blocks.append({"type": "text", "text": draw(st.text(max_size=30))})
        ids = [f"call_{turn}_{index}" for index in range(draw(st.integers(0, 3)))]
        for call_id in ids:
            blocks.append({"type": "tool_use", "id": call_id, "name": draw(st.sampled_from(["Read", "Bash", "Glob"])),
                           "input": draw(json_objects)})
        conversation.append({"role": "assistant", "content": blocks})
        if ids:
            conversation.append({"role": "user", "content": [
                tool_result(call_id, draw(st.text(max_size=30)), draw(st.booleans())) for call_id in ids]})
        else:
            conversation.append(user_message(draw(st.text(min_size=1, max_size=30))))
    return conversation


def serialisable(body: dict) -> dict:
    """`body` after the trip through JSON text that requests makes (allow_nan=False, as requests does)."""
    decoded = json.loads(json.dumps(body, allow_nan=False))
    assert decoded == body
    return decoded


@bounded(100)
@given(conversations(), st.text(max_size=20))
def test_chat_encode_gives_json_and_tool_inputs_survive_the_trip(conversation, system):
    body = serialisable(chat.encode(system, conversation, TOOL_SCHEMAS, "anthropic/claude-haiku-4.5", 8192))
    uses = [b for m in conversation if m["role"] == "assistant" for b in m["content"] if b["type"] == "tool_use"]
    calls = [c for m in body["messages"] if m["role"] == "assistant" for c in m.get("tool_calls", [])]
    assert [c["id"] for c in calls] == [u["id"] for u in uses]
    for use, wire_call in zip(uses, calls):
        assert json.loads(wire_call["function"]["arguments"]) == use["input"]
    results = [b for m in conversation if isinstance(m["content"], list) for b in m["content"] if b["type"] == "tool_result"]
    tool_messages = [m for m in body["messages"] if m["role"] == "tool"]
    assert [m["tool_call_id"] for m in tool_messages] == [r["tool_use_id"] for r in results]


@bounded(100)
@given(conversations(), st.text(max_size=20))
def test_messages_encode_gives_json(conversation, system):
    body = serialisable(messages.encode(system, conversation, TOOL_SCHEMAS, "claude-haiku-4-5", 8192))
    assert body["messages"] == conversation


@bounded(100)
@given(json_objects)
def test_a_tool_input_survives_a_chat_round_trip(arguments):
    conversation = [user_message("go"), Reply("", [ToolCall("call_1", "Read", arguments)]).as_message()]
    body = chat.encode("", conversation, [], "m", 10)
    wire_arguments = body["messages"][-1]["tool_calls"][0]["function"]["arguments"]
    assert json.loads(wire_arguments) == arguments
    back = chat.decode(chat_completion(body["messages"][-1]))
    assert back.tool_calls[0].arguments == arguments and back.tool_calls[0].arguments_error is None


# --- tools -----------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def workspace(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("workspace")
    (root / "sub" / "deeper").mkdir(parents=True)
    (root / "dir with space").mkdir()
    (root / "a.txt").write_text("alpha\nbeta\ngamma\n")
    (root / "sub" / "b.py").write_text("def beta():\n    return 'β'\n")
    (root / "sub" / "deeper" / "c.md").write_text("# title\n" * 50)
    (root / "dir with space" / "d e.txt").write_text("spaced out")
    (root / "empty.txt").write_bytes(b"")
    (root / "binary.bin").write_bytes(b"\x00\x01\x02 beta")
    (root / "latin1.txt").write_bytes(b"caf\xe9 beta\n\xff\xfe\n")
    (root / "crlf.txt").write_bytes(b"one\r\ntwo beta\r\n")
    fd = os.open(os.fsencode(root) + b"/caf\xe9.txt", os.O_CREAT | os.O_WRONLY, 0o644)  # a non-UTF-8 name
    os.write(fd, b"beta\n")
    os.close(fd)
    os.symlink("loop", root / "loop")  # a symlink to itself
    os.symlink("missing-target", root / "dangling")
    return root


KNOWN_PATHS = [".", "", "a.txt", "sub", "sub/b.py", "sub/deeper/c.md", "dir with space/d e.txt", "empty.txt",
               "binary.bin", "latin1.txt", "crlf.txt", "loop", "dangling", "missing.txt", "a.txt/child", "sub/",
               "./a.txt", "a.txt\x00", "\x00", "~nobody-such-user/x", "*"]
# Free text stays inside the workspace: no absolute paths, no `..`, no home folder.
local_text = st.text(max_size=15).filter(lambda s: not s.startswith(("/", "~")) and ".." not in s)
paths = st.sampled_from(KNOWN_PATHS) | local_text
PATTERNS = ["*", "**", "**/*", "*.txt", "**/*.py", "sub/**", "{a,b}*", "[ab]*", "[!a]*", "[", "]", "{", "*.{txt,md}",
            "beta", "^", "(", "a|b", "(?i)BETA", "\\", "[z-a]", "a{2,1}", "(?P<x>", ".*", "\\d+", "β"]
patterns = st.sampled_from(PATTERNS) | local_text
argument_values = st.one_of(paths, patterns, json_values, st.integers(-5, 5), st.integers(2**31, 2**70))
realistic_arguments = st.fixed_dictionaries({}, optional={
    "file_path": either(paths), "offset": either(st.integers(-3, 100)), "limit": either(st.integers(-3, 100)),
    "pattern": either(patterns), "path": either(paths), "glob": either(patterns),
    "output_mode": either(st.sampled_from(["files_with_matches", "content", "count", "lines"])),
    "-i": either(st.booleans()),
})
arbitrary_arguments = st.dictionaries(
    st.sampled_from(["file_path", "offset", "limit", "pattern", "path", "glob", "output_mode", "-i", "content"])
    | st.text(max_size=6),
    argument_values, max_size=5)


@bounded(300)
@given(st.sampled_from(["Read", "Glob", "Grep", "Write", ""]), realistic_arguments | arbitrary_arguments)
@example("Read", {"file_path": "a.txt", "offset": 2**70})
@example("Read", {"file_path": "a.txt\x00"})
@example("Grep", {"pattern": "beta", "path": "a.txt\x00"})
@example("Glob", {"pattern": "\x00*"})
def test_execute_always_returns_a_tool_result(workspace, name, arguments):
    tools = by_name(tool for tool in builtin_tools() if tool.name in ("Read", "Glob", "Grep"))
    before = sorted(os.listdir(workspace))
    try:
        block = execute(ToolCall("call_1", name, arguments), tools, Session(workspace=Workspace(workspace)))
    except AgentError as error:  # our own errors may end a run; nothing else may escape
        pytest.fail(f"a read-only tool raised {error!r}")
    assert block["type"] == "tool_result" and block["tool_use_id"] == "call_1"
    assert isinstance(block["content"], str)
    block["content"].encode("utf-8")  # the provider needs valid UTF-8: no lone surrogates
    assert set(block) <= {"type", "tool_use_id", "content", "is_error"}
    assert block.get("is_error", False) in (False, True)
    assert sorted(os.listdir(workspace)) == before, "a read-only tool changed the workspace"
    if name in ("Write", ""):
        assert block["is_error"] and "unknown tool" in block["content"]
    if name == "Read" and not block.get("is_error") and arguments.get("file_path") == "latin1.txt" \
            and set(arguments) == {"file_path"}:
        assert "\ufffd" in block["content"]
    assert re.search(r"Traceback|File \"", block["content"]) is None
