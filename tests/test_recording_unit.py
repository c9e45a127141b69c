"""Unit tests for record/replay, argument checking and tool execution, and the model client's HTTP
behaviour, without the CLI: a tiny loopback HTTP server stands in for the provider."""

from __future__ import annotations

import json
import socket
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
import yaml

from agent.model.client import ModelClient
from agent.conversation import ToolCall
from agent.errors import ProviderError, ReplayMismatch, UsageError
from agent.model.providers import select_provider
from agent.record.cassette import Recording, record_to
from agent.record.cassette_file import Placeholders, read
from agent.record.replaying import replaying
from agent.record.drift import first_difference
from agent.tools.execute import argument_problem, execute
from agent.tools.base import Tool, ToolError, object_schema

SECRET = "sk-or-v1-" + "SECRET" * 3  # key-shaped at run time only, so no key-shaped literal sits in the repo
MODEL = "anthropic/claude-haiku-4.5"
COMPLETION = {
    "id": "gen-1",
    "model": MODEL,
    "choices": [{"index": 0, "message": {"role": "assistant", "content": "Hello from the server"}, "finish_reason": "stop"}],
    "usage": {"prompt_tokens": 11, "completion_tokens": 4},
}


# --- first_difference -------------------------------------------------------------------------------

def test_first_difference_equal_values():
    value = {"model": "m", "messages": [{"role": "user", "content": "hi"}], "n": [1, 2, {"a": None}]}
    assert first_difference(value, json.loads(json.dumps(value))) is None
    assert first_difference("x", "x") is None
    assert first_difference([], []) is None


def test_first_difference_nested_value_change():
    recorded = {"model": "m", "messages": [{"role": "system", "content": "s"}, {"role": "user", "content": "hi"}]}
    sent = {"model": "m", "messages": [{"role": "system", "content": "s"}, {"role": "user", "content": "bye"}]}
    assert first_difference(recorded, sent) == ("$.messages[1].content", "hi", "bye")


def test_first_difference_missing_key():
    assert first_difference({"a": 1, "b": 2}, {"a": 1}) == ("$.b", 2, "<absent>")
    assert first_difference({"a": 1}, {"a": 1, "tools": []}) == ("$.tools", "<absent>", [])


def test_first_difference_list_length():
    assert first_difference({"x": [1, 2]}, {"x": [1, 2, 3]}) == ("$.x.length", 2, 3)
    assert first_difference({"x": [1, 2, 3]}, {"x": [1, 2]}) == ("$.x.length", 3, 2)


def test_first_difference_list_item_before_length():
    assert first_difference({"x": [1, 2]}, {"x": [1, 5, 3]}) == ("$.x[1]", 2, 5)


def test_first_difference_type_change():
    assert first_difference({"a": 1}, {"a": "1"}) == ("$.a", 1, "1")
    assert first_difference({"a": {"b": 1}}, {"a": [1]}) == ("$.a", {"b": 1}, [1])
    assert first_difference({"a": None}, {"a": 0}) == ("$.a", None, 0)


def test_first_difference_bool_is_not_a_number():
    # JSON `true` and `1` are different values: a replay must not treat them as the same request.
    assert first_difference({"a": True}, {"a": 1}) == ("$.a", True, 1)
    assert first_difference({"a": 0}, {"a": False}) == ("$.a", 0, False)


# --- argument_problem -------------------------------------------------------------------------------

SCHEMA = object_schema(
    {
        "file_path": {"type": "string"},
        "limit": {"type": "integer"},
        "ratio": {"type": "number"},
        "replace_all": {"type": "boolean"},
    },
    ["file_path"],
)


def test_argument_problem_valid():
    assert argument_problem({"file_path": "a.txt"}, SCHEMA) is None
    assert argument_problem({"file_path": "a.txt", "limit": 3, "ratio": 0.5, "replace_all": True}, SCHEMA) is None
    assert argument_problem({"file_path": "a.txt", "ratio": 2}, SCHEMA) is None  # an integer is a number


def test_argument_problem_missing_required():
    problem = argument_problem({"limit": 3}, SCHEMA)
    assert problem and "missing" in problem and "file_path" in problem


def test_argument_problem_unknown_argument():
    problem = argument_problem({"file_path": "a.txt", "path": "b.txt"}, SCHEMA)
    assert problem and "path" in problem and "unknown" in problem
    # the model is told what it may send
    assert "file_path" in problem


def test_argument_problem_unknown_argument_allowed_without_additional_properties_false():
    schema = {"type": "object", "properties": {"a": {"type": "string"}}, "required": []}
    assert argument_problem({"a": "x", "b": 1}, schema) is None


def test_argument_problem_wrong_type():
    problem = argument_problem({"file_path": 42}, SCHEMA)
    assert problem and "file_path" in problem and "string" in problem
    problem = argument_problem({"file_path": "a", "limit": "10"}, SCHEMA)
    assert problem and "limit" in problem and "integer" in problem


@pytest.mark.parametrize("name", ["limit", "ratio"])
def test_argument_problem_bool_rejected_for_numbers(name):
    problem = argument_problem({"file_path": "a", name: True}, SCHEMA)
    assert problem and name in problem


# --- execute ----------------------------------------------------------------------------------------

def _echo(arguments, context):
    return f"echo: {arguments['text']}"


def _fail(arguments, context):
    raise ToolError("file not found: nope.txt")


def _crash(arguments, context):
    return str(1 / 0)


TEXT_SCHEMA = object_schema({"text": {"type": "string"}}, ["text"])
ECHO = Tool("Echo", "Echo the text.", TEXT_SCHEMA, _echo, read_only=True)
FAIL = Tool("Fail", "Always fails.", TEXT_SCHEMA, _fail)
CRASH = Tool("Crash", "Has a bug.", TEXT_SCHEMA, _crash)
TOOLSET = {tool.name: tool for tool in (ECHO, FAIL, CRASH)}


def test_execute_success():
    result = execute(ToolCall("call_1", "Echo", {"text": "hi"}), TOOLSET, None)
    assert result == {"type": "tool_result", "tool_use_id": "call_1", "content": "echo: hi"}


def test_execute_unknown_tool_lists_available():
    result = execute(ToolCall("call_2", "Nope", {}), TOOLSET, None)
    assert result["tool_use_id"] == "call_2"
    assert result["is_error"] is True
    assert "Nope" in result["content"]
    for name in ("Echo", "Fail", "Crash"):
        assert name in result["content"]


def test_execute_arguments_error():
    call = ToolCall("call_3", "Echo", {}, arguments_error="the arguments are not valid JSON (Expecting value); send a JSON object")
    result = execute(call, TOOLSET, None)
    assert result["tool_use_id"] == "call_3"
    assert result["is_error"] is True
    assert "not valid JSON" in result["content"]


def test_execute_schema_problem():
    result = execute(ToolCall("call_4", "Echo", {"txt": "hi"}), TOOLSET, None)
    assert result["is_error"] is True
    assert "text" in result["content"]


def test_execute_tool_error_becomes_error_result():
    result = execute(ToolCall("call_5", "Fail", {"text": "x"}), TOOLSET, None)
    assert result == {"type": "tool_result", "tool_use_id": "call_5", "content": "file not found: nope.txt", "is_error": True}


def test_execute_unexpected_exception_becomes_error_result():
    result = execute(ToolCall("call_6", "Crash", {"text": "x"}), TOOLSET, None)
    assert result["tool_use_id"] == "call_6"
    assert result["is_error"] is True
    assert "ZeroDivisionError" in result["content"]


# --- a loopback provider ----------------------------------------------------------------------------

class Server:
    """A loopback HTTP server answering every POST with a fixed status and body."""

    def __init__(self, status: int = 200, body: bytes | None = None, content_type: str = "application/json",
                 server: str | None = None):
        self.status = status
        self.body = json.dumps(COMPLETION).encode() if body is None else body
        self.content_type = content_type
        self.requests: list[dict] = []
        outer = self

        class Handler(BaseHTTPRequestHandler):
            if server:
                server_version, sys_version = server, ""

            def do_POST(self):
                length = int(self.headers.get("content-length") or 0)
                outer.requests.append({"path": self.path, "headers": dict(self.headers), "body": self.rfile.read(length)})
                self.send_response(outer.status)
                self.send_header("Content-Type", outer.content_type)
                self.send_header("Content-Length", str(len(outer.body)))
                self.send_header("X-Request-Id", "req-123")
                self.end_headers()
                self.wfile.write(outer.body)

            def log_message(self, *args):
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.base = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self.thread = threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)
        self.thread.start()

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
        self.thread.join(5)


@pytest.fixture(autouse=True)
def no_proxy(monkeypatch):
    for variable in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"):
        monkeypatch.delenv(variable, raising=False)


@pytest.fixture
def server():
    running = Server()
    yield running
    running.stop()


def client_for(base: str, **kwargs) -> ModelClient:
    provider = select_provider({"OPENROUTER_API_KEY": SECRET, "OPENROUTER_BASE_URL": base + "/api/v1"})
    return ModelClient(provider, **kwargs)


def folders(root: Path) -> dict[str, Path]:
    workspace, home = root / "workspace", root / "home"
    workspace.mkdir(parents=True, exist_ok=True)
    home.mkdir(parents=True, exist_ok=True)
    return {"workspace": workspace, "home": home}


def complete(client: ModelClient, workspace: Path, text: str = "hi"):
    return client.complete(
        system="cwd is " + str(workspace), messages=[{"role": "user", "content": text}], tools=[], model=MODEL
    )


# --- record and replay ------------------------------------------------------------------------------

@pytest.fixture
def recorded(tmp_path):
    """A cassette recorded against the loopback server, which is stopped afterwards."""
    path = tmp_path / "cassettes" / "run.yaml"
    place = folders(tmp_path / "first")
    running = Server()
    try:
        client = client_for(running.base)
        with record_to(str(path), client.http, place):
            reply = complete(client, place["workspace"])
        assert reply.text == "Hello from the server"
        assert len(running.requests) == 1
    finally:
        running.stop()
    return path, place, running.base


def test_record_writes_a_reviewable_cassette_without_secrets(recorded):
    path, place, base = recorded
    text = path.read_text()
    assert "{{workspace}}" in text
    assert str(place["workspace"]) not in text
    assert str(place["workspace"].resolve()) not in text
    assert SECRET not in text
    assert "authorization" not in text.lower()
    data = yaml.safe_load(text)
    (interaction,) = data["interactions"]
    # a server that is not the scripted model keeps its address: only the scripted one is renamed
    assert interaction["request"]["uri"] == base + "/api/v1/chat/completions"
    assert [k.lower() for k in interaction["response"]["headers"]] == ["content-type"]
    # JSON bodies are YAML structures, so a reader sees the values, not escaped JSON text
    body = interaction["request"]["body"]
    assert body["messages"][0]["content"][0]["text"] == "cwd is {{workspace}}"
    assert interaction["response"]["body"]["string"]["choices"][0]["message"]["content"] == "Hello from the server"


def test_a_scripted_reply_is_labelled_and_its_loopback_address_renamed(tmp_path):
    path = tmp_path / "run.yaml"
    place = folders(tmp_path)
    running = Server(server="scripted-model")
    try:
        client = client_for(running.base)
        recording = Recording({"prompts": ["multi-line\nprompt in " + str(place["workspace"])]}, client.current_agent)
        with record_to(str(path), client.http, place, recording):
            complete(client, place["workspace"], "a\nlong\nmessage")
    finally:
        running.stop()
    text = path.read_text()
    data = yaml.safe_load(text)
    assert data["setup"] == {"recorded_against": "scripted model", "prompts": ["multi-line\nprompt in {{workspace}}"]}
    assert data["interactions"][0]["agent"] == "main"
    assert data["interactions"][0]["request"]["uri"] == "http://scripted-model/api/v1/chat/completions"
    assert "content: |-\n" in text and "\n          a\n          long\n          message\n" in text  # a block scalar


def test_replay_from_another_workspace_without_the_server(recorded, tmp_path):
    path, _, base = recorded
    place = folders(tmp_path / "second")
    client = client_for(base)
    with replaying(read(str(path), Placeholders(place)), client.http, client.current_agent):
        reply = complete(client, place["workspace"])
    assert reply.text == "Hello from the server"
    assert (reply.usage.input_tokens, reply.usage.output_tokens) == (11, 4)


def test_replay_with_changed_message_names_the_path(recorded, tmp_path):
    path, _, base = recorded
    place = folders(tmp_path / "second")
    client = client_for(base)
    with pytest.raises(ReplayMismatch) as info:
        with replaying(read(str(path), Placeholders(place)), client.http, client.current_agent):
            complete(client, place["workspace"], text="hello there")
    message = str(info.value)
    # chat wire: messages[0] is the system prompt, the user's text is messages[1]
    assert "$.messages[1].content" in message
    assert "'hi'" in message
    assert "'hello there'" in message


def test_replay_with_changed_workspace_shape_names_the_system_prompt(recorded, tmp_path):
    path, _, base = recorded
    place = folders(tmp_path / "second")
    client = client_for(base)
    with pytest.raises(ReplayMismatch) as info:
        with replaying(read(str(path), Placeholders(place)), client.http, client.current_agent):
            complete(client, place["workspace"] / "sub")
    assert "$.messages[0].content" in str(info.value)


def test_replay_more_requests_than_recorded(recorded, tmp_path):
    path, _, base = recorded
    place = folders(tmp_path / "second")
    client = client_for(base)
    with pytest.raises(ReplayMismatch) as info:
        with replaying(read(str(path), Placeholders(place)), client.http, client.current_agent):
            assert complete(client, place["workspace"]).text == "Hello from the server"
            complete(client, place["workspace"])
    message = str(info.value)
    assert "more requests" in message
    assert "(1)" in message


def test_replay_missing_cassette_is_usage_error(tmp_path):
    client = client_for("http://127.0.0.1:9")
    with pytest.raises(UsageError) as info:
        with replaying(read(str(tmp_path / "absent.yaml"), Placeholders(folders(tmp_path))), client.http, client.current_agent):
            pass
    assert "absent.yaml" in str(info.value)
    assert info.value.exit_code == 2


# --- trace ------------------------------------------------------------------------------------------

def test_trace_writes_one_line_per_request_without_the_key(server, tmp_path):
    trace = tmp_path / "trace.jsonl"
    client = client_for(server.base, trace_path=str(trace))
    complete(client, tmp_path, "one")
    complete(client, tmp_path, "two")
    lines = trace.read_text().splitlines()
    assert len(lines) == 2
    entries = [json.loads(line) for line in lines]
    assert [e["request"]["messages"][-1]["content"] for e in entries] == ["one", "two"]
    assert all(e["response"] == COMPLETION for e in entries)
    assert SECRET not in trace.read_text()
    # the key did reach the server, so it was only kept out of the trace
    assert server.requests[0]["headers"].get("authorization") == f"Bearer {SECRET}"


# --- HTTP failures ----------------------------------------------------------------------------------

def test_http_400_shows_provider_message():
    running = Server(400, json.dumps({"error": {"message": "x is not supported", "code": 400}}).encode())
    try:
        with pytest.raises(ProviderError) as info:
            complete(client_for(running.base), Path("/tmp"))
    finally:
        running.stop()
    assert "HTTP 400" in str(info.value)
    assert "x is not supported" in str(info.value)


def test_http_502_non_json_shows_status():
    running = Server(502, b"<html>Bad Gateway</html>", content_type="text/html")
    try:
        with pytest.raises(ProviderError) as info:
            complete(client_for(running.base), Path("/tmp"))
    finally:
        running.stop()
    assert "HTTP 502" in str(info.value)
    assert "Bad Gateway" in str(info.value)


def test_http_200_non_json_body():
    running = Server(200, b"not json", content_type="text/plain")
    try:
        with pytest.raises(ProviderError, match="not JSON"):
            complete(client_for(running.base), Path("/tmp"))
    finally:
        running.stop()


def test_http_200_error_body():
    running = Server(200, json.dumps({"error": {"message": "Provider returned error"}}).encode())
    try:
        with pytest.raises(ProviderError, match="Provider returned error"):
            complete(client_for(running.base), Path("/tmp"))
    finally:
        running.stop()


def test_connection_refused_could_not_reach():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    with pytest.raises(ProviderError) as info:
        complete(client_for(f"http://127.0.0.1:{port}"), Path("/tmp"))
    assert "could not reach" in str(info.value)
    assert SECRET not in str(info.value)
