"""Test MCP servers written with the official SDK (knowledge_base, results, hostile; what they
share and the behaviours a test may ask of them are in serving.py), and what tests need to use
them: a server's configuration, a whole --mcp-config, one served over HTTP on a free port, and
the tool results a request carried on either wire."""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Iterator

SERVERS = Path(__file__).resolve().parent


def stdio(script: str, **env: str) -> dict[str, Any]:
    """The configuration of the test server `script` over stdio, with `env` for it."""
    return {"command": sys.executable, "args": [str(SERVERS / script)], "env": env}


def mcp_config(**servers: dict[str, Any]) -> str:
    """--mcp-config JSON naming `servers` (name -> configuration)."""
    return json.dumps({"mcpServers": servers})


def tool_results(payload: dict[str, Any]) -> list[tuple[str, bool]]:
    """The tool results of a request (the answers to the latest assistant turn), each as its text
    and whether it is an error, on either wire (chat marks an error by its text)."""
    messages = payload["messages"]
    if messages[-1]["role"] == "tool" or (len(messages) > 1 and messages[-2]["role"] == "tool"):
        found = []
        for message in reversed(messages):
            if message["role"] == "user":
                continue
            if message["role"] != "tool":
                break
            found.append((message["content"].removeprefix("Error: "), message["content"].startswith("Error: ")))
        return list(reversed(found))
    blocks = messages[-1]["content"] if isinstance(messages[-1]["content"], list) else []
    return [(b["content"], bool(b.get("is_error"))) for b in blocks if b.get("type") == "tool_result"]


def call_id(payload: dict[str, Any]) -> str:
    """The id of the (first) tool call of the latest assistant turn a request carries, on either wire."""
    assistant = [message for message in payload["messages"] if message["role"] == "assistant"][-1]
    return (assistant.get("tool_calls") or [b for b in assistant["content"] if b.get("type") == "tool_use"])[0]["id"]


@contextlib.contextmanager
def listening(script: str, transport: str, folder: Path, **env: str) -> Iterator[str]:
    """The test server `script` served over `transport` (streamable-http or sse) on a free port
    of 127.0.0.1, with `env`, while the block runs; yields its URL."""
    port_file, errors = folder / f"{script}.{transport}.port", folder / f"{script}.{transport}.stderr"
    with open(errors, "w") as stderr:  # a file: a pipe nobody reads would block a chatty server
        process = subprocess.Popen([sys.executable, str(SERVERS / script), transport, str(port_file)],
                                   env={**os.environ, **env}, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                   stderr=stderr)
    try:
        deadline = time.monotonic() + 30
        while not port_file.exists():
            if process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"the test server {script} did not start: {errors.read_text()[-2000:]}")
            time.sleep(0.05)
        path = "/mcp" if transport == "streamable-http" else "/sse"
        yield f"http://127.0.0.1:{port_file.read_text()}{path}"
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
