"""Long-session figures for `make bench`: a session of many sequential Reads, run in each mode.

The session is the one issue 21 measured: N-1 sequential Reads of 2 KB files, then the answer,
against the scripted model on 127.0.0.1. Each mode runs the real program in a fresh child process:
live, `--record`, `--replay` and `--replay --replay-tools` (the replays in the folder the recording
was made in), in rounds of the four, so that each mode meets the same load on a shared machine.
Per mode: the median wall time and its ratio to the live runs' median, and peak memory (the
agent process's own ru_maxrss, see measured_run.py); per session: the cassette's bytes and the
bytes of new content the model was sent.
"""

from __future__ import annotations

import dataclasses
import json
import os
import resource
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from measured_run import ChildRun, run_child
from scripted_model import Request, ScriptedModel, ScriptedReply, call, text

MODES = ("live", "record", "replay", "replay-tools")
FLAGS = {"live": "live", "record": "--record", "replay": "--replay", "replay-tools": "--replay --replay-tools"}
RATIO_TARGETS = {"record": 1.5, "replay": 2.0, "replay-tools": 2.0}  # wall, as a multiple of live
CASSETTE_TARGET = 3.0  # cassette bytes, as a multiple of the new content the model was sent
WIRES = {"openrouter": "chat", "anthropic": "messages"}
# (turns, provider, rounds): both wires at 200 turns, median of three; the chat wire alone at
# 1,000, once, since its live run alone takes over a minute here (each request carries the whole
# conversation, 2.3 MB by the end)
SESSIONS = ((200, "openrouter", 3), (200, "anthropic", 3), (1000, "openrouter", 1))
ANSWER = "All files read."
FILE_LINES, LINE_BYTES = 32, 64  # 2,048 bytes a file


def failure(run: ChildRun) -> str | None:
    """Why a run of the session does not count (None when it answered as scripted)."""
    problem = run.failure()
    if problem is None and run.stdout.strip() != ANSWER:
        problem = f"answered {run.stdout.strip()[:60]!r}"
    return problem


class NewContent:
    """Bytes of new content the model was sent: each conversation's first request whole, then for
    each later request the messages that were not in that conversation's previous request.

    It runs inside the scripted model, so it must cost little: messages are compared as parsed JSON
    (a C-level walk) and only the new ones are serialised. Conversations are told apart by their
    first user message, as the scripted model's routes are (a subagent is given its own task).
    """

    def __init__(self, model: ScriptedModel) -> None:
        self.model = model
        self.bytes = 0
        self.requests = 0
        self._previous: dict[str, list] = {}

    def replying(self, reply: ScriptedReply):
        """`reply`, as a scripted reply that first counts the request it answers."""
        def answer(request: Request) -> ScriptedReply:
            self.count(request)
            return reply
        return answer

    def count(self, request: Request) -> None:
        # the model keeps every request it received: a 1,000-turn session's would be gigabytes of
        # objects in this process, which the collector walks while the agent waits for its reply
        self.model.requests.clear()
        self.requests += 1
        key = request.first_user_text()
        messages = request.body.get("messages", [])
        previous = self._previous.get(key)
        if previous is None:
            self.bytes += len(request.raw)
        else:
            self.bytes += sum(len(json.dumps(m)) for m in _not_in(messages, previous))
        self._previous[key] = messages


def _not_in(messages: list, previous: list) -> list:
    """The messages of `messages` that `previous` does not hold (a conversation grows at its end,
    so the common prefix is skipped before anything is looked up)."""
    same = 0
    for old, new in zip(previous, messages):
        if old != new:
            break
        same += 1
    rest = messages[same:]
    if not rest or same == len(previous):
        return rest
    seen = {json.dumps(m, sort_keys=True) for m in previous[same:]}
    return [m for m in rest if json.dumps(m, sort_keys=True) not in seen]


def file_text(number: int) -> str:
    """A 2 KB file of code-like lines (no trailing spaces, so a cassette can show it as a block)."""
    filler = "the quick brown fox jumps over the lazy dog and back again"
    lines = []
    for line in range(FILE_LINES):
        head = f"record {number:04d} line {line:02d}: "
        lines.append((head + filler)[:LINE_BYTES - 1] + "\n")
    return "".join(lines)


@dataclass
class Session:
    """Figures of one session shape on one wire."""

    turns: int
    provider: str
    runs: dict[str, list[ChildRun]] = field(default_factory=dict)
    cassette_bytes: int | None = None
    new_content: int = 0
    requests: int = 0  # the model received in the first live run
    model_cpu: float = 0.0  # seconds of this process's CPU (the scripted model) in the first live run

    @property
    def wire(self) -> str:
        return WIRES[self.provider]

    def run(self, mode: str) -> ChildRun | None:
        """The mode's figure: its first failed run, else the median run with the highest peak."""
        runs = self.runs.get(mode)
        if not runs:
            return None
        failed = [r for r in runs if failure(r)]
        if failed:
            return failed[0]
        middle = sorted(runs, key=lambda r: r.wall)[len(runs) // 2]
        return dataclasses.replace(middle, peak_kb=max(r.peak_kb for r in runs))


class LongSessions:
    """A root folder holding a home (bypassPermissions, as the tester runs) and one workspace per session."""

    def __init__(self, python: str, timeout: float) -> None:
        self.python = python
        self.timeout = timeout
        self.root = Path(tempfile.mkdtemp(prefix="agent-bench-long-"))
        self.home = self.root / "home"
        (self.home / ".claude").mkdir(parents=True)
        (self.home / ".claude" / "settings.json").write_text(json.dumps({"permissions": {"defaultMode": "bypassPermissions"}}))

    def close(self) -> None:
        shutil.rmtree(self.root, ignore_errors=True)

    def env(self, provider: str, model: ScriptedModel | None) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENROUTER_", "ANTHROPIC_", "AGENT_", "CLAUDE_", "XDG_"))}
        env.update(HOME=str(self.home), AGENT_PROVIDER=provider)
        base = model.base if model else "http://127.0.0.1:9"  # a replay sends nothing
        if provider == "openrouter":
            env.update(OPENROUTER_API_KEY="bench", OPENROUTER_BASE_URL=base + "/api/v1")
        else:
            env.update(ANTHROPIC_API_KEY="bench", ANTHROPIC_BASE_URL=base)
        return env

    def measure(self, turns: int, provider: str, rounds: int) -> Session:
        """Run the session in each mode, `rounds` times; a mode that cannot run says why."""
        session = Session(turns, provider)
        workspace = self.root / f"{provider}-{turns}"
        workspace.mkdir()
        names = [f"part-{n:04d}.txt" for n in range(turns - 1)]
        for number, name in enumerate(names):
            (workspace / name).write_text(file_text(number))
        try:
            for _ in range(rounds):
                if not self._round(session, workspace, names):
                    break  # a failed or timed-out run is the figure; more rounds would only repeat it
        finally:
            shutil.rmtree(workspace, ignore_errors=True)
        return session

    def _round(self, session: Session, workspace: Path, names: list[str]) -> bool:
        """Each mode once, in order; False when a run failed (the replays only when there is a cassette)."""
        cassette = workspace.with_suffix(".yaml")
        prompt = f"Read the {len(names)} files part-0000.txt to {names[-1]} one after another, then say you are done."
        common = [self.python, "-I", "-m", "agent", "--no-session-persistence", "--max-turns", str(session.turns)]
        first = "live" not in session.runs
        failed = False
        try:
            for mode in MODES:
                if mode in ("live", "record"):
                    model = ScriptedModel()
                    tally = NewContent(model)
                    model.script(*[tally.replying(call("Read", file_path=name)) for name in names], tally.replying(text(ANSWER)))
                    flags = ["-p", prompt] + (["--record", str(cassette)] if mode == "record" else [])
                    cpu = _cpu_seconds()
                    try:
                        run = run_child(common + flags, workspace, self.env(session.provider, model), self.timeout)
                    finally:
                        model.close()
                    if mode == "live" and first:
                        session.new_content, session.requests, session.model_cpu = tally.bytes, tally.requests, _cpu_seconds() - cpu
                    if mode == "record" and not failure(run):
                        session.cassette_bytes = cassette.stat().st_size
                else:
                    flags = ["--replay", str(cassette)] + (["--replay-tools"] if mode == "replay-tools" else [])
                    run = run_child(common + flags, workspace, self.env(session.provider, None), self.timeout)
                session.runs.setdefault(mode, []).append(run)
                failed = failed or failure(run) is not None
                if failed and mode in ("live", "record"):
                    return False  # nothing to compare with, or nothing to replay
        finally:
            cassette.unlink(missing_ok=True)
        return not failed


def _cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def mb(size: float, decimals: int = 1) -> str:
    return f"{size / 1024 / 1024:.{decimals}f} MB"


HEADER = ("turns", "wire", "mode", "wall", "x live", "target", "peak RSS", "cassette", "x new content", "target")


def table(sessions: list[Session]) -> tuple[list[str], int]:
    """The printed lines of the long-session figures, and how many targets were missed."""
    rows: list[tuple[str, ...]] = []
    notes: list[str] = []
    missed = 0
    for s in sessions:
        rounds = len(s.runs.get("live", []))
        notes.append(f"{s.turns} turns, {s.wire} wire, {rounds} round{'s' if rounds != 1 else ''}: {s.requests} requests, new content the model was sent {mb(s.new_content, 2)}"
                     f" ({s.new_content:,} B); the scripted model used {s.model_cpu:.1f} s of CPU in the live run")
        for mode in MODES:
            cells, misses, problem = _row(s, mode)
            rows.append((str(s.turns), s.wire, FLAGS[mode], *cells))
            missed += misses
            if problem:
                notes.append(f"{s.turns} turns, {s.wire} wire, {FLAGS[mode]}: {problem}")
    widths = [max(len(r[i]) for r in [HEADER, *rows]) for i in range(len(HEADER))]
    lines = ["  ".join(cell.ljust(w) for cell, w in zip(row, widths)).rstrip() for row in [HEADER, *rows]]
    return lines + notes, missed


def _row(s: Session, mode: str) -> tuple[tuple[str, ...], int, str | None]:
    """One mode's cells (wall, x live, target, peak RSS, cassette, x new content, target), the
    targets it missed and why it does not count, if it does not."""
    run, live = s.run(mode), s.run("live")
    live_ok = live is not None and failure(live) is None
    problem = failure(run) if run else "not run: an earlier mode failed"
    wall, peak = (f"{run.wall:.2f} s", mb(run.peak_kb * 1024)) if run else ("-", "-")
    ratio = target = size = share = share_target = ""
    missed = 0
    if mode == "live":
        ratio = "1.00x" if live_ok else "-"
    else:
        limit = RATIO_TARGETS[mode]
        value = run.wall / live.wall if run and live_ok else None
        ratio = "-" if value is None else f"{'>' if run.exit_code is None else ''}{value:.2f}x"
        met = problem is None and value is not None and value <= limit
        target, missed = f"<= {limit}x {'ok' if met else 'MISSED'}", missed + (not met)
    if mode == "record":
        value = s.cassette_bytes / s.new_content if s.cassette_bytes is not None and s.new_content else None
        size, share = ("-", "-") if value is None else (mb(s.cassette_bytes), f"{value:.1f}x")
        met = value is not None and value <= CASSETTE_TARGET
        share_target, missed = f"<= {CASSETTE_TARGET:g}x {'ok' if met else 'MISSED'}", missed + (not met)
    return (wall, ratio, target, peak, size, share, share_target), missed, problem
