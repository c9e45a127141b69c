"""What the test MCP servers share: the transport from the command line, a log of what they were
asked, and behaviours a test asks for through the server's environment (its `env` in the config).

Command line: `stdio` (the default), or `streamable-http PORT` / `sse PORT`, serving on 127.0.0.1;
PORT is a number, or a file to write a free port's number to once the server listens.

Environment:
- MCP_TEST_LOG: a file each MCP request's method is appended to (`initialize`, `tools/list`,
  `tools/call <tool> <tool_use id>`), and over HTTP each request's `<METHOD> <X-Test-Token>`.
- MCP_TEST_PID_FILE: a file the server writes its pid to as it starts (as this module is imported).
- MCP_TEST_EXIT: exit at once with this status (after a line on stderr).
- MCP_TEST_SLEEP: seconds to sleep before serving (before it can answer `initialize`).
- MCP_TEST_MEET: `<folder>:<own name>:<other's name>`: write `<folder>/<own name>`, then wait
  (at most 20 s) for `<folder>/<other's name>`, exiting with status 1 when it never comes; shows
  two servers starting at the same time.
- MCP_TEST_BANNER: a line to print on stdout before serving (as some servers wrongly do).
- MCP_TEST_STDERR_BYTES: write this many bytes to stderr before serving, ending with `flood end`.
"""

from __future__ import annotations

import os
import socket
import sys
import time
from pathlib import Path


def log(line: str) -> None:
    path = os.environ.get("MCP_TEST_LOG")
    if path:
        with open(path, "a") as file:
            file.write(line + "\n")


async def log_requests(ctx, call_next):
    """Server middleware: each request's method in the log, a call with its tool and tool_use id."""
    if ctx.method == "tools/call":
        params = ctx.params or {}
        log(f"tools/call {params.get('name')} {(params.get('_meta') or {}).get('claudecode/toolUseId')}")
    elif not ctx.method.startswith("notifications/"):
        log(ctx.method)
    return await call_next(ctx)


if pid_file := os.environ.get("MCP_TEST_PID_FILE"):  # at once: a test may stop the server before it serves
    Path(pid_file).write_text(str(os.getpid()))


def _starting() -> None:
    if status := os.environ.get("MCP_TEST_EXIT"):
        print("exiting at start, as asked", file=sys.stderr, flush=True)
        sys.exit(int(status))
    if count := int(os.environ.get("MCP_TEST_STDERR_BYTES", "0")):
        line = "x" * 1023 + "\n"
        for _ in range(count // 1024):
            sys.stderr.write(line)
        sys.stderr.write("flood end\n")
        sys.stderr.flush()
    if banner := os.environ.get("MCP_TEST_BANNER"):  # on stdout, where only JSON-RPC belongs
        print(banner, flush=True)
    if meet := os.environ.get("MCP_TEST_MEET"):
        folder, me, other = meet.split(":")
        (Path(folder) / me).write_text("started")
        deadline = time.monotonic() + 20
        while not (Path(folder) / other).exists():
            if time.monotonic() > deadline:
                print(f"{other} never started while {me} was starting", file=sys.stderr, flush=True)
                sys.exit(1)
            time.sleep(0.05)
    time.sleep(float(os.environ.get("MCP_TEST_SLEEP", "0")))


def _logged_http(app):
    """The ASGI app with each HTTP request logged (its method and X-Test-Token header)."""
    async def logged(scope, receive, send):
        if scope["type"] == "http":
            headers = dict(scope.get("headers") or [])
            log(f"{scope['method']} {headers.get(b'x-test-token', b'-').decode()}")
        await app(scope, receive, send)
    return logged


def serve(app) -> None:
    """Serve the MCPServer `app` as the command line says, after the asked-for behaviours."""
    _starting()
    transport = sys.argv[1] if len(sys.argv) > 1 else "stdio"
    if transport == "stdio":
        app.run("stdio")
        return
    import uvicorn

    where = sys.argv[2]
    sock = socket.socket()
    sock.bind(("127.0.0.1", int(where) if where.isdigit() else 0))
    sock.listen()
    asgi = app.streamable_http_app() if transport == "streamable-http" else app.sse_app()
    server = uvicorn.Server(uvicorn.Config(_logged_http(asgi), log_level="warning"))
    if not where.isdigit():
        Path(where + ".part").write_text(str(sock.getsockname()[1]))
        os.replace(where + ".part", where)  # whole when it appears
    server.run(sockets=[sock])
