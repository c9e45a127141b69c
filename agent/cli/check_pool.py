"""`cassette check --jobs N`: cassettes checked in N worker processes, their results given back in
the order they were found, each as soon as it and all before it are known.

Workers come from a fork server, never from a fork of the checking process: that process may have
threads (parallel subagents, a test runner's), and a forked copy of a lock one of them held would
never be released. The server is a fresh single-threaded interpreter that imports what a replay
needs once (`WARM`), so each worker it forks starts warm instead of paying that import; where
there is no fork server (Windows), workers are spawned. Each worker checks one cassette at a time
with `check_cassette`, in the folder and environment the parent has when it starts them, and
sends back the result with what the replay wrote on stderr, which the parent prints just before
that cassette's line, as one process would. A worker that dies (a crash, the OOM killer) is an
`error` for the cassette it was checking; another worker takes over the rest.
"""

from __future__ import annotations

import io
import logging
import multiprocessing
import os
import signal
import sys
from collections import deque
from multiprocessing.connection import Connection, wait
from typing import Iterator

from agent.cli.checking import CheckOptions, check_cassette
from agent.cli.report import configure_logging
from agent.cli.visible import shown
from agent.record.check import ERROR, Checked

log = logging.getLogger("agent")
_STOP = None  # sent to a worker: no more cassettes
# What a first replay imports, imported once by the fork server rather than by every worker (only
# a matter of speed: a module left out is imported by the worker that needs it).
WARM = ["agent.cli.check_pool", "agent.run", "agent.cli.replay", "agent.record.replaying", "agent.record.expect",
        "agent.model.client", "agent.permissions.bash_check"]


def check_in_workers(paths: list[str], options: CheckOptions, jobs: int, log_level: int) -> Iterator[Checked]:
    """Check `paths` in `jobs` worker processes, yielding each result in the order of `paths`."""
    context = _context()
    pending = deque((index, path, os.path.realpath(path)) for index, path in enumerate(paths))
    done: dict[int, tuple[Checked, str]] = {}
    workers: list[_Worker] = []
    following = 0  # the next result to give back
    try:
        while following < len(paths):
            while len(workers) < jobs and _startable(pending, workers):
                try:
                    workers.append(_Worker(context, options, log_level))
                except OSError as exc:  # no process can be started here (no temporary folder, a limit)
                    if workers:
                        break  # those running take the rest
                    log.warning(f"cassette check: could not start a worker process ({exc}): checking in this one")
                    while pending:
                        index, path, _ = pending.popleft()
                        done[index] = (check_cassette(path, options), "")
            for worker in workers:
                if worker.job is None and (job := _next_job(pending, workers)) is not None:
                    worker.give(job)
            for worker in _ready(workers):
                index, result, stderr = worker.collect()
                done[index] = (result, stderr)
                if worker.dead:
                    workers.remove(worker)
            while following in done:
                result, stderr = done.pop(following)
                if stderr:
                    sys.stderr.write(shown(stderr, sys.stderr))
                    sys.stderr.flush()
                yield result
                following += 1
    finally:
        for worker in workers:
            worker.stop()


class _Worker:
    """One worker process and the pipe to it; `job` is the cassette it is checking, if any."""

    def __init__(self, context, options: CheckOptions, log_level: int) -> None:
        self.connection, theirs = context.Pipe()
        self.process = context.Process(target=serve, args=(theirs, options, log_level, dict(os.environ)),
                                       daemon=True, name="cassette-check")
        self.process.start()
        theirs.close()  # ours is then the only end left here: a worker's death reads as the end of the pipe
        self.job: tuple[int, str, str] | None = None  # its index, path and the file it names
        self.dead = False

    def give(self, job: tuple[int, str, str]) -> None:
        self.job = job
        try:
            self.connection.send(job[:2])
        except OSError:  # it died before it could read: collect() says so for this cassette
            pass

    def collect(self) -> tuple[int, Checked, str]:
        """The result of the job it was given, or an `error` for it when the worker died."""
        index, path, _ = self.job
        self.job = None
        try:
            got_index, result, stderr = self.connection.recv()
            if got_index == index:
                return index, result, stderr
        except (EOFError, OSError, ValueError, TypeError):
            pass
        self.dead = True
        self.process.join(timeout=5)
        return index, Checked(path, ERROR, f"the process checking it ended unexpectedly ({_ending(self.process)})"), ""

    def stop(self) -> None:
        """End the worker: told to when idle, killed when it is still checking (an interrupt)."""
        if self.job is None and not self.dead:
            try:
                self.connection.send(_STOP)
            except OSError:
                pass
            self.process.join(timeout=5)
        if self.process.is_alive():
            self.process.kill()
            self.process.join(timeout=5)
        self.connection.close()


def _context():
    """Where workers come from: the fork server (started once per process, warm), else spawn."""
    if "forkserver" not in multiprocessing.get_all_start_methods():
        return multiprocessing.get_context("spawn")
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(WARM)  # heeded when the server starts, the first time only
    return context


def _ready(workers: list[_Worker]) -> list[_Worker]:
    """The busy workers with a result to collect (or that died), waiting until there is one."""
    busy = {worker.connection: worker for worker in workers if worker.job is not None}
    if not busy:
        return []
    return [busy[connection] for connection in wait(list(busy))]


def _next_job(pending: deque, workers: list[_Worker]) -> tuple[int, str, str] | None:
    """The first pending cassette whose file no worker is checking: a file found twice
    (overlapping folders) is checked after its first check ended, as one process would (an
    update rewrites it)."""
    checking = {worker.job[2] for worker in workers if worker.job is not None}
    for position, job in enumerate(pending):
        if job[2] not in checking:
            del pending[position]
            return job
    return None


def _startable(pending: deque, workers: list[_Worker]) -> bool:
    """Whether another worker would have a cassette to check."""
    return sum(worker.job is None for worker in workers) < len(pending)


def _ending(process) -> str:
    code = process.exitcode
    if code is None:
        return "it stopped answering"
    if code < 0:
        try:
            return f"killed by {signal.Signals(-code).name}"
        except ValueError:
            return f"killed by signal {-code}"
    return f"exit code {code}"


def serve(connection: Connection, options: CheckOptions, log_level: int, environment: dict[str, str]) -> None:
    """A worker's life: check each cassette it is sent, send back the result and what the replay
    wrote on stderr, until told to stop or the parent goes away. It takes the parent's
    `environment` (the fork server's is the one it had when it started, and HOME or the
    variables may have changed since; the folder is the parent's already). Ctrl-C is the
    parent's to handle (it ends the workers), so a worker ignores it."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    os.environ.clear()
    os.environ.update(environment)
    while True:
        try:
            job = connection.recv()
        except (EOFError, OSError):
            return
        if job is _STOP:
            return
        index, path = job
        written = io.StringIO()
        sys.stderr = written  # the replay's [agent] lines, printed by the parent in order
        configure_logging(log_level)
        try:
            result = check_cassette(path, options)
        except BaseException as exc:  # never a traceback on the user's terminal: an error for this cassette
            result = Checked(path, ERROR, f"internal error: {type(exc).__name__}: {exc}"[:300])
        finally:
            sys.stderr = sys.__stderr__
        logging.getLogger("agent").handlers.clear()
        try:
            connection.send((index, result, written.getvalue()))
        except (EOFError, OSError):  # the parent went away
            return
        except Exception as exc:  # a result that cannot be sent (pickled) is still one line for its cassette
            connection.send((index, Checked(path, ERROR, f"internal error: {type(exc).__name__}: {exc}"[:300]), ""))

