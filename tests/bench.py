"""`make bench`: our overhead and payload figures against their targets.

The scripted model answers with zero latency (except where a figure needs a delay), so what is
measured is the agent itself. Each timing is the median of several runs; the baselines run in
the same process, on the same machine, at the same time. Then the long sessions (long_session.py):
200 and 1,000 turns in each mode, live, `--record` and both replays. This is a benchmark, not a
test: it prints its tables, each figure ok or MISSED, and exits 1 when a target was missed.

    python tests/bench.py            # everything (make bench)
    python tests/bench.py --short    # start-up, per-turn, payload and Bash figures (make bench BENCH=short)
    python tests/bench.py --long     # the long sessions alone (make bench BENCH=long)
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from corpus import seed_corpus  # noqa: E402
from long_session import SESSIONS, LongSessions, table  # noqa: E402
from measured_run import run_child  # noqa: E402
from scripted_model import Call, ScriptedModel, call, calls, text  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
PYTHON = str(REPO / ".venv" / "bin" / "python")
RUNS = int(os.environ.get("BENCH_RUNS", "7"))


def timed(argv: list[str], cwd: Path, env: dict[str, str]) -> tuple[float, int]:
    """Wall seconds and peak RSS (KB) of one child process."""
    run = run_child(argv, cwd, env, timeout=600)
    if run.exit_code != 0:
        raise SystemExit(f"benchmark run failed: {' '.join(argv)}\n{run.failure()}\n{run.stderr}")
    return run.wall, run.peak_kb


class Bench:
    def __init__(self) -> None:
        self.root = Path(tempfile.mkdtemp(prefix="agent-bench-"))
        self.home = self.root / "home"
        self.home.mkdir()
        self.model = ScriptedModel()
        self.env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENROUTER_", "ANTHROPIC_", "AGENT_", "CLAUDE_", "XDG_"))}
        self.env.update(HOME=str(self.home), OPENROUTER_API_KEY="bench", OPENROUTER_BASE_URL=self.model.base + "/api/v1")

    def workspace(self, name: str) -> Path:
        path = self.root / name
        path.mkdir(exist_ok=True)
        return path

    def agent(self, workspace: Path, prompt: str, *flags: str) -> tuple[float, int]:
        argv = [PYTHON, "-I", "-m", "agent", "-p", prompt, "--no-session-persistence", *flags]
        return timed(argv, workspace, self.env)

    def median_run(self, workspace: Path, replies, prompt="Say hi.") -> tuple[float, int]:
        walls, peaks = [], []
        for _ in range(RUNS):
            self.model.script(*replies())
            wall, peak = self.agent(workspace, prompt)
            walls.append(wall)
            peaks.append(peak)
        return statistics.median(walls), max(peaks)

    def baseline(self, code: str) -> float:
        return statistics.median(timed([PYTHON, "-I", "-c", code], self.root, self.env)[0] for _ in range(RUNS))

    def trace(self, workspace: Path, replies, prompt: str) -> list[str]:
        """The exact request bodies of one run, as sent (from --trace)."""
        trace = workspace / "trace.jsonl"
        trace.unlink(missing_ok=True)
        self.model.script(*replies)
        self.agent(workspace, prompt, "--trace", str(trace))
        return [json.dumps(json.loads(line)["request"]) for line in trace.read_text().splitlines()]

    def imports(self, workspace: Path, replies) -> str:
        """The modules one run imports (python -X importtime), as text."""
        self.model.script(*replies)
        argv = [PYTHON, "-X", "importtime", "-I", "-m", "agent", "-p", "Hi", "--no-session-persistence"]
        return subprocess.run(argv, cwd=workspace, env=self.env, stdin=subprocess.DEVNULL, capture_output=True,
                              text=True, check=True).stderr

    def close(self) -> None:
        self.model.close()
        shutil.rmtree(self.root, ignore_errors=True)


TYPICAL_COMMANDS = [  # what a model runs every day, under a settings file's worth of rules
    "git status && git diff --stat",
    "npm test -- --watch=false 2>&1 | tail -n 40",
    "cd packages/api && pytest -q tests/test_users.py -k 'create or delete'",
    "find . -name '*.py' -not -path './.venv/*' | xargs grep -n 'TODO' | head -50",
    "for f in src/*.ts; do echo \"$f\"; wc -l \"$f\"; done > /tmp/counts.txt",
]


def bash_check_costs() -> tuple[float, float]:
    """Seconds for the first Bash check of a process (the parser loads) and the mean of a typical one."""
    sys.path.insert(0, str(REPO))
    from agent.permissions.policy import Policy

    folder = Path(tempfile.mkdtemp(prefix="agent-bench-policy-"))
    policy = Policy("default", ("Bash(git status:*)", "Bash(git diff:*)", "Bash(npm test:*)", "Bash(pytest:*)",
                                "Bash(find:*)", "Bash(xargs:*)", "Bash(grep:*)", "Bash(head:*)", "Bash(echo:*)"),
                    ("Bash(rm -rf:*)", "Bash(git push:*)", "Read(./.env)", "Edit(./.github/**)"), ("Bash(curl:*)",),
                    folder, folder)
    start = time.perf_counter()
    policy.check("Bash", {"command": "ls"}, False)
    first = time.perf_counter() - start
    rounds = 200
    start = time.perf_counter()
    for _ in range(rounds):
        for command in TYPICAL_COMMANDS:
            policy.check("Bash", {"command": command}, False)
    shutil.rmtree(folder, ignore_errors=True)
    return first, (time.perf_counter() - start) / (rounds * len(TYPICAL_COMMANDS))


def common_prefix_share(a: str, b: str) -> float:
    n = 0
    for x, y in zip(a, b):
        if x != y:
            break
        n += 1
    return n / len(a)


def overheads() -> int:
    """Print the short figures; the number of targets missed."""
    bench = Bench()
    rows: list[tuple[str, str, str, bool]] = []
    try:
        plain = bench.workspace("plain")
        (plain / "notes.txt").write_text("line\n" * 50)
        python_pass = bench.baseline("pass")
        python_requests = bench.baseline("import requests")
        one_turn, peak = bench.median_run(plain, lambda: [text("hi")])
        rows.append(("start: one-turn -p run", f"{one_turn * 1000:.0f} ms", f"<= {(python_requests + 0.06) * 1000:.0f} ms (import requests {python_requests * 1000:.0f} ms + 60; python -c pass {python_pass * 1000:.0f} ms)", one_turn <= python_requests + 0.06))
        rows.append(("start: peak memory", f"{peak / 1024:.0f} MB", "(reported)", True))

        forty, _ = bench.median_run(plain, lambda: [call("Read", file_path="notes.txt") for _ in range(39)] + [text("done")], "Read notes.txt 39 times.")
        per_turn = (forty - one_turn) / 39
        rows.append(("per turn (40-turn run)", f"{per_turn * 1000:.2f} ms", "<= 2 ms", per_turn <= 0.002))

        real = bench.workspace("real-world")
        seed_corpus(real, skills=1000, agents=500, age_s=3600)
        bench.model.script(text("hi"))
        first, _ = bench.agent(real, "Say hi.")  # the first run parses everything and fills the frontmatter cache
        rows.append(("first run with them (cold frontmatter cache)", f"+{(first - one_turn) * 1000:.0f} ms", "(reported)", True))
        real_run, _ = bench.median_run(real, lambda: [text("hi")])
        added = real_run - one_turn
        rows.append(("1,000 skills + 500 agents (real-world, 2-10 KB)", f"+{added * 1000:.0f} ms", "<= +50 ms", added <= 0.05))
        size = len(bench.trace(real, [text("hi")], "Hi")[0].encode())
        rows.append(("payload: first request, real-world set", f"{size / 1024:.1f} KB", "<= 48 KB", size <= 48 * 1024))

        bodies = bench.trace(plain, [call("Read", file_path="notes.txt") for _ in range(9)] + [text("done")], "Read notes.txt nine times.")
        first = bench.trace(plain, [text("hi")], "Hi")[0]
        rows.append(("payload: first request (system + tools)", f"{len(first.encode()) / 1024:.1f} KB", "< 12 KB", len(first.encode()) < 12 * 1024))
        growth = (len(bodies[-1]) - len(bodies[0])) / (len(bodies) - 1)
        rows.append(("payload: growth per turn (Read of 250 B)", f"{growth:.0f} B", "(reported)", True))
        shares = [common_prefix_share(a, b) for a, b in zip(bodies, bodies[1:])]
        rows.append(("prefix stability (10-turn run, min)", f"{min(shares):.4f}", ">= 0.99", min(shares) >= 0.99))

        first_check, typical = bash_check_costs()
        rows.append(("Bash check: first command (loads the parser)", f"{first_check * 1000:.1f} ms", "(reported)", True))
        rows.append(("Bash check: parse + decision, typical command", f"{typical * 1000:.2f} ms", "<= 2 ms", typical <= 0.002))
        loaded = bench.imports(plain, [text("hi")])
        rows.append(("a run that checks no command loads no parser", "yes" if "tree_sitter" not in loaded else "no",
                     "yes", "tree_sitter" not in loaded))

        parallel = bench.workspace("parallel")
        walls = []
        for _ in range(max(3, RUNS // 2)):
            bench.model.script(calls(*[Call("Agent", {"description": f"part {i}", "prompt": f"Part {i} of the job.", "run_in_background": False}) for i in range(4)]))
            for i in range(4):
                bench.model.route(f"Part {i} of the job.", text(f"part {i} done", delay_s=1.0))
            bench.model.script(text("all parts done"))
            walls.append(bench.agent(parallel, "Do the four parts in parallel.")[0])
        wall = statistics.median(walls)
        rows.append(("four 1 s subagents in parallel", f"{wall:.2f} s", "<= 1.3 s (floor 1.0 s)", wall <= 1.3))
    finally:
        bench.close()

    print(f"machine: {platform.machine()}, {os.cpu_count()} CPUs, {platform.system()} {platform.release()}, Python {platform.python_version()}; median of {RUNS} runs")
    width = max(len(r[0]) for r in rows)
    print(f"{'figure':<{width}}  {'measured':>10}  target")
    for name, value, target, met in rows:
        print(f"{name:<{width}}  {value:>10}  {target}  {'ok' if met else 'MISSED'}")
    return sum(not met for *_, met in rows)


def long_sessions(turns: set[int], timeout: float) -> int:
    """Print the long-session figures; the number of targets missed."""
    chosen = [session for session in SESSIONS if session[0] in turns]
    print(f"long sessions ({platform.machine()}, {os.cpu_count()} CPUs, Python {platform.python_version()}): N-1 sequential"
          f" Reads of 2 KB files, then the answer; rounds of the four modes, each run in a fresh process (timeout"
          f" {timeout:.0f} s); wall is the median, x live its ratio to the live runs' median of the same session", flush=True)
    sessions = LongSessions(PYTHON, timeout)
    measured = []
    try:
        for n, provider, rounds in chosen:
            measured.append(sessions.measure(n, provider, rounds))
            print(f"  measured {n} turns on {provider}", file=sys.stderr, flush=True)
    finally:
        sessions.close()
    lines, missed = table(measured)
    print("\n".join(lines))
    return missed


def main(argv: list[str] | None = None) -> int:
    global PYTHON
    parser = argparse.ArgumentParser(description="Our overhead, payload and long-session figures against their targets.")
    part = parser.add_mutually_exclusive_group()
    part.add_argument("--short", action="store_true", help="only the start-up, per-turn, payload and Bash figures")
    part.add_argument("--long", action="store_true", help="only the long sessions")
    known = {session[0] for session in SESSIONS}
    parser.add_argument("--turns", default=",".join(str(n) for n in sorted(known)),
                        help="the long sessions to run, by turns (comma-separated; default: %(default)s)")
    parser.add_argument("--timeout", type=float, default=600.0, help="seconds a long-session run may take (default: %(default)s)")
    parser.add_argument("--python", default=PYTHON, help="the interpreter that runs the agent (another checkout's, for an A/B)")
    args = parser.parse_args(argv)
    try:
        turns = {int(n) for n in args.turns.split(",")}
    except ValueError:
        parser.error(f"--turns: not a comma-separated list of numbers: {args.turns}")
    if not turns <= known:
        parser.error(f"--turns: choose among {', '.join(str(n) for n in sorted(known))}")
    PYTHON = args.python
    missed = 0 if args.long else overheads()
    if not args.short:
        missed += long_sessions(turns, args.timeout)
    if missed:
        print(f"bench: {missed} target{'s' if missed > 1 else ''} missed", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
