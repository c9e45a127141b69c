"""The command line's flags, named as Claude Code names them. `-p/--print` is a switch and the
prompt is the positional argument, in any position (`-p "<prompt>"` reads the same)."""

from __future__ import annotations

import argparse
from typing import Sequence

from agent import __version__
from agent.cli.environment import help_text
from agent.errors import UsageError
from agent.model.limits import MIN_THINKING_BUDGET
from agent.permissions.policy import MODES

PICK_SESSION = ""  # what -r without a session id holds: the interactive mode asks which one (agent.cli.interactive)
EXIT_CODES = """exit codes:
  0    the answer was printed
  1    the run failed: a provider error, a replay that drifted, the turn limit
  2    bad input: flags, environment variables, a missing key, prompt or file
  130  interrupted (Ctrl-C)"""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # one line, not argparse's usage block
        raise UsageError(f"{message} (see --help)")


def build_parser() -> argparse.ArgumentParser:
    """The parser of the agent's command line."""
    parser = _Parser(
        prog="your_program.sh", usage="%(prog)s [options] [prompt]",
        description="A terminal coding agent (Claude Code compatible). Piped input is added to the prompt.",
        epilog=f"environment variables:\n{help_text()}\n\n{EXIT_CODES}",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        allow_abbrev=False,  # a long flag is never a prefix of another: --agent is not --agents
    )
    add = parser.add_argument
    add("prompt", nargs="?", help="the prompt (or pipe it in on stdin)")
    add("-p", "--print", action="store_true", help="print the answer and exit (the only mode without a terminal)")
    add("--output-format", choices=["text", "json", "stream-json"], default="text",
        help="text (default), one JSON result object, or JSON lines as the run goes (stream-json needs --verbose)")
    add("--input-format", choices=["text", "stream-json"], default="text",
        help="text (default: the prompt as an argument or piped in), or stream-json: user and control messages as "
             "JSON lines on stdin, as the Agent SDK sends them (needs --output-format stream-json)")
    add("--permission-prompt-tool", metavar="TOOL",
        help="who is asked about a call that needs approval: stdio asks the Agent SDK (can_use_tool, with "
             "--input-format stream-json)")
    add("--include-partial-messages", action="store_true", help="with stream-json: also each piece of text as it streams")
    add("--include-hook-events", action="store_true",
        help="with stream-json: also every hook's start and answer (SessionStart's are always shown)")
    add("--verbose", action="store_true", help="narrate requests and tool calls on stderr")
    add("-d", "--debug", nargs="?", const="", metavar="CATEGORIES",
        help="write a debug log to ~/.claude/debug/<session>.txt (skipped agent files, unused keys, ...); "
             "CATEGORIES keeps or leaves out parts: subagents,skills or '!mcp'")
    add("--debug-file", metavar="PATH", help="write the debug log to PATH (implies --debug)")
    add("--provider", choices=["openrouter", "anthropic"], help="model provider (default: from the environment)")
    add("--model", help="model id or alias: haiku, sonnet, opus, best, opusplan, default (default: AGENT_MODEL, else the provider's default)")
    add("--max-turns", type=int, default=None, metavar="N", help="stop after N model replies (default 100)")
    add("--tools", metavar="TOOLS", help='the built-in tools offered, comma-separated ("Read,Bash"); "" for none, '
                                         '"default" for all')
    add("--autocompact", metavar="TOKENS", help="compact the conversation ahead of time within a window of TOKENS "
        "(at least 100000), 33000 tokens before it fills; auto: only when the provider refuses a request as too long")
    add("--max-budget-usd", metavar="USD", help="stop once the run has cost more than USD (every request, subagents' too)")
    add("--task-budget", type=int, metavar="TOKENS", help=argparse.SUPPRESS)  # the SDK's: output_config.task_budget
    add("--fallback-model", metavar="MODELS", help="the models to switch to, in order, when the main one is overloaded or "
        "unavailable (comma-separated); each turn tries the main model again")
    add("--betas", metavar="BETAS", help=argparse.SUPPRESS)  # the SDK's: Anthropic beta headers
    add("--effort", metavar="LEVEL", help="reasoning effort: low, medium, high, xhigh or max (models that have it)")
    add("--thinking", choices=["adaptive", "enabled", "disabled"], help=argparse.SUPPRESS)  # the SDK's ThinkingConfig
    add("--max-thinking-tokens", type=int, metavar="N", help=argparse.SUPPRESS)  # hidden in Claude Code too
    add("--thinking-display", choices=["summarized", "omitted", "highlights"], help=argparse.SUPPRESS)
    add("--json-schema", metavar="JSON", help="a JSON Schema the final answer must fit (structured_output in JSON results)")
    add("--system-prompt", metavar="TEXT", help="replace the agent's instructions in the system prompt")
    add("--system-prompt-file", metavar="FILE", help="--system-prompt, read from FILE")
    add("--append-system-prompt", metavar="TEXT", help="add TEXT at the end of the system prompt")
    add("--append-system-prompt-file", metavar="FILE", help="--append-system-prompt, read from FILE")
    add("-c", "--continue", dest="continue_session", action="store_true", help="continue the latest session of this folder")
    add("-r", "--resume", metavar="SESSION_ID", nargs="?", const=PICK_SESSION,
        help="continue the session SESSION_ID; without one (interactive mode), pick one of this folder's recent sessions")
    add("--session-id", metavar="UUID", help="the id of this new session")
    add("--fork-session", action="store_true", help="with --resume or --continue: continue in a new session id")
    add("--resume-session-at", metavar="MESSAGE_ID", help=argparse.SUPPRESS)  # the SDK's: resume up to that message
    add("--plugin-dir", dest="plugin_dirs", action="append", default=[], metavar="DIR", help=argparse.SUPPRESS)
    add("--session-mirror", action="store_true", help=argparse.SUPPRESS)  # the SDK's session_store: transcript_mirror lines
    add("--agents", metavar="JSON", help="extra subagent definitions: a JSON object, or a path to a JSON file")
    add("--agent", metavar="NAME", help="run the session as the agent NAME (its prompt, tools, model and "
                                         "permission mode; default: the settings' agent field)")
    add("--append-subagent-system-prompt", metavar="TEXT", help="add TEXT at the end of every subagent's system prompt")
    add("--append-subagent-system-prompt-file", metavar="FILE", help="--append-subagent-system-prompt, read from FILE")
    add("--settings", metavar="FILE", help="extra settings (a JSON file, or JSON text), applied last")
    add("--mcp-config", dest="mcp_configs", action="append", default=[], metavar="FILE_OR_JSON",
        help='MCP servers: a JSON file or JSON text {"mcpServers": {...}} (repeatable)')
    add("--strict-mcp-config", action="store_true", help="use only the --mcp-config servers (not .mcp.json or your own)")
    add("--add-dir", dest="add_dirs", action="append", default=[], metavar="DIR",
        help="another folder the tools may work in, like the workspace (repeatable)")
    add("--permission-mode", choices=MODES, help="how tool calls are approved (default: settings, else default)")
    add("--allowedTools", "--allowed-tools", dest="allowed_tools", action="append", default=[], metavar="RULES",
        help='rules approving tool calls, e.g. "Bash(git:*) Edit"')
    add("--disallowedTools", "--disallowed-tools", dest="disallowed_tools", action="append", default=[], metavar="RULES",
        help="rules refusing tool calls (they win over everything)")
    add("--trust-workspace", action="store_true",
        help="trust this folder's own settings and skills to grant permissions (allow rules, "
             "additionalDirectories, a skill's allowed-tools), as accepting the trust question does, for "
             "this run only; for CI that checked the folder out (or AGENT_TRUST_WORKSPACE=1)")
    add("--dangerously-skip-permissions", action="store_true", help="approve every tool call that no deny rule refuses")
    add("--no-session-persistence", action="store_true", help="do not write transcripts under ~/.claude/projects")
    add("--trace", metavar="FILE", help="append every request payload and reply to FILE as JSON lines")
    recording = parser.add_mutually_exclusive_group()
    recording.add_argument("--record", metavar="CASSETTE", help="run live and record every model exchange to CASSETTE")
    recording.add_argument("--replay", metavar="CASSETTE", help="run offline, answering from CASSETTE")
    add("--replay-tools", action="store_true", help="with --replay: take tool results from the cassette too; nothing runs")
    add_match_flags(parser)
    add("--setting-sources", metavar="SOURCES",
        help="which settings, skills, agents and CLAUDE.md files load: a comma-separated list of user, project "
             "and local (default: all three); e.g. project,local to record without your home folder's")
    add("--version", action="version", version=f"agent {__version__}")
    return parser


def add_match_flags(parser: argparse.ArgumentParser) -> None:
    """The flags saying what a replay compares (`agent.record.match`), shared by --replay,
    `cassette check` and `cassette diff`."""
    add = parser.add_argument
    add("--ignore", dest="match_ignore", action="append", default=[], metavar="JSONPATH",
        help="a request path a replay does not compare, e.g. '$.tools[*].description' (repeatable)")
    add("--scrub", dest="match_scrub", action="append", default=[], metavar="REGEX[=REPLACEMENT]",
        help="text a replay replaces on both sides before comparing, e.g. a timestamp (repeatable)")
    add("--match", dest="match_preset", choices=["content"], default=None,
        help="'content': a replay compares only what you own (prompts, messages, tool names and schemas, "
             "skills, agents, CLAUDE.md), not the agent's own instructions or tool descriptions")


def parse(argv: Sequence[str] | None) -> argparse.Namespace:
    """The parsed command line; flags and the prompt may come in any order."""
    args = build_parser().parse_intermixed_args(argv)
    if args.system_prompt is not None and args.system_prompt_file is not None:
        raise UsageError("give --system-prompt or --system-prompt-file, not both")
    if args.append_system_prompt is not None and args.append_system_prompt_file is not None:
        raise UsageError("give --append-system-prompt or --append-system-prompt-file, not both")
    if args.append_subagent_system_prompt is not None and args.append_subagent_system_prompt_file is not None:
        raise UsageError("give --append-subagent-system-prompt or --append-subagent-system-prompt-file, not both")
    if args.continue_session and args.resume is not None:
        raise UsageError("give only one of --continue, --resume and --session-id (--session-id goes with either "
                         "only with --fork-session)")
    if args.session_id and (args.continue_session or args.resume is not None) and not args.fork_session:
        raise UsageError("--session-id with --continue or --resume also needs --fork-session, as in Claude Code")
    if args.resume_session_at is not None and args.resume in (None, PICK_SESSION):
        raise UsageError("--resume-session-at requires --resume, as in Claude Code")
    thinking = args.max_thinking_tokens
    if thinking is not None and (thinking < 0 or 0 < thinking < MIN_THINKING_BUDGET):
        raise UsageError(f"--max-thinking-tokens must be 0 (off) or a whole number >= {MIN_THINKING_BUDGET}")
    if args.task_budget is not None and args.task_budget < 1:
        raise UsageError("--task-budget must be a positive integer, as in Claude Code")
    if args.output_format == "stream-json" and not args.verbose:
        raise UsageError("--output-format stream-json needs --verbose, as in Claude Code")
    if args.replay_tools and not args.replay:
        raise UsageError("--replay-tools needs --replay CASSETTE")
    if (args.match_ignore or args.match_scrub or args.match_preset) and not args.replay:
        raise UsageError("--ignore, --scrub and --match say what a replay compares: they need --replay CASSETTE")
    if args.include_partial_messages and args.output_format != "stream-json":
        raise UsageError("--include-partial-messages works only with --output-format stream-json")
    if args.input_format == "stream-json" and args.output_format != "stream-json":
        raise UsageError("--input-format stream-json needs --output-format stream-json, as in Claude Code")
    if args.permission_prompt_tool is not None and args.permission_prompt_tool != "stdio":
        raise UsageError(f"--permission-prompt-tool {args.permission_prompt_tool}: only stdio (the Agent SDK's "
                         "can_use_tool, with --input-format stream-json) is supported")
    if args.permission_prompt_tool == "stdio" and args.input_format != "stream-json":
        raise UsageError("--permission-prompt-tool stdio needs --input-format stream-json")
    if args.include_hook_events and args.output_format != "stream-json":
        raise UsageError("--include-hook-events works only with --output-format stream-json")
    return args
