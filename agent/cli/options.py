"""The command line's flags."""

from __future__ import annotations

import argparse

from agent import __version__
from agent.errors import UsageError
from agent.permissions.policy import MODES


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # one line, not argparse's usage block
        raise UsageError(f"{message} (see --help)")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="your_program.sh", description="A terminal coding agent (Claude Code compatible).")
    parser.add_argument("-p", "--print", dest="prompt", metavar="PROMPT", help="the prompt; print only the final answer")
    parser.add_argument("--provider", choices=["openrouter", "anthropic"], help="model provider (default: from the environment)")
    parser.add_argument("--model", help="model id (default: AGENT_MODEL, else the provider's default)")
    parser.add_argument("--max-turns", type=int, default=None, metavar="N", help="stop after N model replies (default 100)")
    parser.add_argument("--output-format", choices=["text", "json"], default="text", help="text (default) or one JSON result object")
    parser.add_argument("--verbose", action="store_true", help="narrate requests and tool calls on stderr")
    parser.add_argument("--agents", metavar="JSON", help="extra subagent definitions: a JSON object, or a path to a JSON file")
    parser.add_argument("--permission-mode", choices=MODES, help="how tool calls are approved (default: settings, else default)")
    parser.add_argument("--allowedTools", "--allowed-tools", dest="allowed_tools", action="append", default=[], metavar="RULES", help='rules approving tool calls, e.g. "Bash(git:*) Edit"')
    parser.add_argument("--disallowedTools", "--disallowed-tools", dest="disallowed_tools", action="append", default=[], metavar="RULES", help="rules refusing tool calls (they win over everything)")
    parser.add_argument("--dangerously-skip-permissions", action="store_true", help="approve every tool call that no deny rule refuses")
    parser.add_argument("--no-session-persistence", action="store_true", help="do not write transcripts under ~/.claude/projects")
    parser.add_argument("--trace", metavar="FILE", help="append every request payload and reply to FILE as JSON lines")
    recording = parser.add_mutually_exclusive_group()
    recording.add_argument("--record", metavar="CASSETTE", help="run live and record every model exchange to CASSETTE")
    recording.add_argument("--replay", metavar="CASSETTE", help="run offline, answering from CASSETTE")
    parser.add_argument("--replay-tools", action="store_true", help="with --replay: take tool results from the cassette too; nothing runs")
    parser.add_argument("--version", action="version", version=f"agent {__version__}")
    return parser
