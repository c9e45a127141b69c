"""The terminal of an interactive session: reading lines with prompt_toolkit (history across
sessions, completion of `/` commands and `@path` mentions, multi-line input) and showing answers
with rich (Markdown, a spinner while waiting, one compact line per tool call).

Both libraries are imported here only, and this module only in interactive mode, so a `-p` run
starts no slower. When the output is not a terminal (a pipe), nothing gets colours or cursor
movement: rich writes plain text.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import threading
from pathlib import Path
from typing import Callable, Iterable

from prompt_toolkit import PromptSession
from prompt_toolkit.completion import Completer, Completion
from prompt_toolkit.history import FileHistory, InMemoryHistory
from prompt_toolkit.key_binding import KeyBindings
from rich.console import Console, Group
from rich.live import Live
from rich.markdown import Markdown
from rich.spinner import Spinner
from rich.text import Text

from agent.cli.visible import shown

SUMMARY_CHARS = 70


class _Completer(Completer):
    """`/` commands at the start of the input, and `@path` mentions anywhere."""

    def __init__(self, commands: dict[str, str], cwd: Path) -> None:
        self.commands = commands
        self.cwd = cwd

    def get_completions(self, document, complete_event) -> Iterable[Completion]:
        text = document.text_before_cursor
        if text.startswith("/") and " " not in text:
            for name, meaning in sorted(self.commands.items()):
                if name.startswith(text[1:]):
                    yield Completion("/" + name, start_position=-len(text), display_meta=meaning)
            return
        word = text.rsplit(None, 1)[-1] if text.strip() else ""
        if word.startswith("@"):
            yield from self._paths(word[1:])

    def _paths(self, partial: str) -> Iterable[Completion]:
        folder, _, stem = partial.rpartition("/")
        try:
            entries = sorted(os.scandir(self.cwd / folder if folder else self.cwd), key=lambda e: e.name)
        except OSError:
            return
        for entry in entries:
            if entry.name.startswith(stem) and not entry.name.startswith("."):
                path = f"{folder}/{entry.name}" if folder else entry.name
                yield Completion("@" + path + ("/" if entry.is_dir() else ""), start_position=-len(partial) - 1)


class Terminal:
    """Input and output of one interactive session."""

    def __init__(self, cwd: Path, history_file: Path | None, commands: dict[str, str]) -> None:
        self.console = Console(highlight=False, soft_wrap=False)  # the answers
        self.interactive_output = self.console.is_terminal
        # everything else: with the output going to a file or a pipe, only the answers go there
        self.chrome = self.console if self.interactive_output else Console(file=sys.stderr, highlight=False)
        history = InMemoryHistory()
        if history_file is not None:
            try:
                history_file.parent.mkdir(parents=True, exist_ok=True)
                history = FileHistory(str(history_file))
            except OSError:
                pass
        bindings = KeyBindings()

        @bindings.add("escape", "enter")  # Alt-Enter (or Esc, Enter) adds a line; Enter sends
        def _(event):
            event.current_buffer.insert_text("\n")

        self.prompt = PromptSession(history=history, completer=_Completer(commands, cwd), key_bindings=bindings,
                                    complete_while_typing=False)
        self._lock = threading.RLock()
        self._live: Live | None = None
        self._view = None  # what the live area shows above `below`: the spinner, or the answer so far
        self._answer = ""
        self.below: Callable[[], list[str]] = list  # lines kept under it (the panel of agents), read at each refresh
        self.during_turn: Callable[[], contextlib.AbstractContextManager] = contextlib.nullcontext  # keys read meanwhile
        self.activity: Callable[[], str] = lambda: "thinking…"  # what the spinner says (the task in progress)
        self.after_turn: Callable[[object], list[str]] = lambda messages: []  # lines shown once a turn ended

    @property
    def lock(self) -> threading.RLock:
        """Held while anything is shown or asked: a question's answer is read under it."""
        return self._lock

    def read(self) -> str:
        """The next input; raises EOFError on Ctrl-D and KeyboardInterrupt on Ctrl-C. When the
        output is not a terminal, a plain line is read (the prompt on stderr, not in the output)."""
        if not self.interactive_output:
            sys.stderr.write("> ")
            sys.stderr.flush()
            line = sys.stdin.readline()
            if not line:
                raise EOFError
            return line.rstrip("\n")
        return self.prompt.prompt("> ", multiline=False)

    def say(self, text: str, style: str | None = None) -> None:
        """A line of our own (a header, a hint, a result), not the model's."""
        with self._lock:
            self.chrome.print(Text(shown(text, self.chrome.file), style=style or ""), soft_wrap=True)  # the terminal wraps a long path

    def waiting(self) -> None:
        """A spinner until the answer's first text arrives."""
        with self._lock:
            self._answer = ""
            if self.interactive_output:
                self._view = Spinner("dots", text=self.activity())
                live = Live(console=self.console, transient=True, refresh_per_second=12, get_renderable=self._live_view)
                with _interrupt_deferred():
                    live.start()
                    self._live = live

    def answer_text(self, delta: str) -> None:
        """More of the answer, as it streams."""
        with self._lock:
            self._answer += delta
            if self._live is not None:
                self._view = Markdown(shown(self._answer, self.console.file))
                self._live.refresh()

    def _live_view(self):
        """The spinner (or the answer so far) with the `below` lines under it."""
        if isinstance(self._view, Spinner):
            self._view.update(text=self.activity())
        lines = self.below()
        return Group(self._view, *(Text(shown(line, self.console.file)) for line in lines)) if lines else self._view

    def answer_done(self, text: str) -> None:
        """The whole answer: shown as Markdown (the streamed view replaced by the final one)."""
        with self._lock:
            self._stop_live()
            if text.strip():
                text = shown(text, self.console.file)
                self.console.print(Markdown(text) if self.interactive_output else text)
            self._answer = ""

    def tool_call(self, depth: int, call: str) -> None:
        """`● Read(src/app.py)`, indented under the call that started it (a subagent's)."""
        self._between_answers(Text("  " * depth + "● ", style="cyan") + Text(shown(call, self.chrome.file), style="bold"))

    def tool_result(self, depth: int, summary: str) -> None:
        """A call's result in one short line, under the call."""
        self._between_answers(Text("  " * depth + "  ⎿ " + shown(summary, self.chrome.file), style="dim"))

    def show(self, lines: list[str]) -> None:
        """Lines of our own shown above the live area while a turn runs (an agent opened from the panel)."""
        self._between_answers(*(Text(shown(line, self.chrome.file)) for line in lines))

    def notice(self, text: str, warning: bool = False) -> None:
        """What a hook tells the person (its systemMessage), on a line of its own between answers."""
        self._between_answers(Text("● ", style="yellow" if warning else "dim") + Text(shown(text, self.chrome.file)))

    def _between_answers(self, *lines: Text) -> None:
        with self._lock:
            paused = self._pause_live()
            for line in lines:
                self.chrome.print(line)
            if paused:
                self.waiting()

    def ask(self, question: str, choices: str) -> str:
        """One key from `choices` (lower case), asked on a line of its own; Ctrl-C or Ctrl-D is the last choice."""
        with self._lock:
            self._stop_live()
            while True:
                try:
                    if self.interactive_output:
                        answer = PromptSession().prompt(f"{shown(question, sys.stdout)} [{'/'.join(choices)}] ")
                    else:
                        sys.stderr.write(f"{shown(question, sys.stderr)} [{'/'.join(choices)}] ")
                        sys.stderr.flush()
                        answer = sys.stdin.readline()
                        if not answer:
                            raise EOFError
                    answer = answer.strip().lower()
                except (EOFError, KeyboardInterrupt):
                    return choices[-1]
                if answer[:1] in choices:
                    return answer[:1]

    def _pause_live(self) -> bool:
        if self._live is None:
            return False
        self._stop_live()
        return True

    def _stop_live(self) -> None:
        live, self._live = self._live, None
        if live is not None:
            with _interrupt_deferred():
                live.stop()


@contextlib.contextmanager
def _interrupt_deferred():
    """Ctrl-C held back until the body is done: rich's live display started or stopped half way
    leaves a spinner running or fails to stop again."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    pressed = []
    previous = signal.signal(signal.SIGINT, lambda number, frame: pressed.append(number))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
    if pressed:
        raise KeyboardInterrupt


def summary(text: str) -> str:
    """A tool result in one short line: its first line of output and how many more there are (a
    command's exit code only when it failed)."""
    lines = [line for line in text.strip().splitlines() if line.strip()]
    failed = ""
    if lines and lines[0].startswith("exit code: "):
        code = lines.pop(0).removeprefix("exit code: ")
        failed = "" if code == "0" else f" (exit {code})"
    if not lines:
        return "(no output)" + failed
    first = " ".join(lines[0].split())
    first = first if len(first) <= SUMMARY_CHARS else first[:SUMMARY_CHARS - 1] + "…"
    return first + (f" (+{len(lines) - 1} lines)" if len(lines) > 1 else "") + failed
