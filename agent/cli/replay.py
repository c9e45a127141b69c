"""A cassette's setup: what a recording stores of its run, and a replay that follows it.

`SHAPING_OPTIONS` (parsed flags, by their argparse `dest`) and `SHAPING_ENVIRONMENT` name what shapes
the requests beyond the workspace: a recording stores the ones given in the cassette's setup, and a
replay takes them from there, whatever the replaying user typed or exported. A new flag that
shapes requests is one more name in `SHAPING_OPTIONS`.
"""

from __future__ import annotations

import argparse
import json
import logging
import shlex
from pathlib import Path
from typing import Any, Mapping

from agent import __version__
from agent.errors import UsageError
from agent.model.providers import KINDS, Provider, select_provider
from agent.workspace import json_option, load_json

SHAPING_OPTIONS = (
    "max_turns", "agents", "permission_mode", "allowed_tools", "disallowed_tools", "dangerously_skip_permissions",
    "system_prompt", "append_system_prompt", "settings", "add_dirs", "include_partial_messages", "setting_sources",
    "agent", "append_subagent_system_prompt", "json_schema", "fallback_model", "max_budget_usd",
    "tools", "effort", "max_thinking_tokens", "thinking", "thinking_display", "task_budget", "betas", "autocompact",
)
SHAPING_ENVIRONMENT = (
    "CLAUDE_CODE_SUBAGENT_MODEL", "CLAUDE_CODE_MAX_SUBAGENT_SPAWN_DEPTH", "CLAUDE_CODE_MAX_CONCURRENT_SUBAGENTS",
    "CLAUDE_CODE_FORK_SUBAGENT", "CLAUDE_CODE_ENABLE_TASKS", "CLAUDE_CODE_DISABLE_EXPLORE_PLAN_AGENTS", "CLAUDE_AGENT_SDK_DISABLE_BUILTIN_AGENTS",
    "CLAUDE_CODE_SUBAGENT_MODEL_FORCE", "CLAUDE_CODE_EFFORT_LEVEL", "CLAUDE_CODE_DISABLE_AUTO_MEMORY",
    "SLASH_COMMAND_TOOL_CHAR_BUDGET", "AGENT_MAX_RETRIES", "MAX_THINKING_TOKENS", "CLAUDE_CODE_MAX_OUTPUT_TOKENS",
    "ANTHROPIC_DEFAULT_HAIKU_MODEL", "ANTHROPIC_DEFAULT_SONNET_MODEL", "ANTHROPIC_DEFAULT_OPUS_MODEL",
    "CLAUDE_CODE_AUTO_COMPACT_WINDOW", "CLAUDE_AUTOCOMPACT_PCT_OVERRIDE", "DISABLE_AUTO_COMPACT",
)
# what a live run reads to choose and reach its provider and model; a replay reads none of it
PROVIDER_PREFIXES = ("AGENT_", "OPENROUTER_", "ANTHROPIC_")
# where this machine keeps files a run reads (the organisation's folder): a replay reads the replaying user's
MACHINE_ENVIRONMENT = ("AGENT_MANAGED_DIR",)
# Options that could let more run than the replaying user allows. A cassette may come from
# someone else, so when tools run for real (a regression replay) the recorded ones apply only when
# the user vouches for the cassette (agent.cli.trust.vouched) or gives them too; with
# --replay-tools nothing runs and the recorded ones are followed.
WIDENING_OPTIONS = ("permission_mode", "allowed_tools", "dangerously_skip_permissions", "settings", "add_dirs")
NARROWING_MODES = ("default", "plan", "dontAsk")  # a recorded --permission-mode that grants nothing: it always applies
log = logging.getLogger("agent")
REPLAY_KEY = "replay-key"  # stands in for the key a replay does not need (never written anywhere)


def _flag(parser: argparse.ArgumentParser, dest: str) -> str:
    for action in parser._actions:
        if action.dest == dest:
            return next((o for o in action.option_strings if o.startswith("--")), action.option_strings[0])
    raise KeyError(dest)


def recorded_setup(args: argparse.Namespace, parser: argparse.ArgumentParser, provider: Provider, model: str,
                   env: Mapping[str, str], turns: list[str] | None = None) -> dict[str, Any]:
    """What a cassette records of this run so that a replay needs nothing else (its
    `recorded_against` is added by the cassette, from the replies). `turns` is the list of the
    user's prompts, which an interactive session fills as it goes; by default the one prompt."""
    setup: dict[str, Any] = {
        "agent_version": __version__,
        "provider": provider.name,
        "wire": provider.wire.__name__.rsplit(".", 1)[-1],
        "model": model,
        "prompts": [args.prompt] if turns is None else turns,  # every user turn of the run, in order
    }
    options = {_flag(parser, dest): getattr(args, dest) for dest in SHAPING_OPTIONS
               if getattr(args, dest) != parser.get_default(dest)}
    for flag in ("--agents", "--settings"):  # a file's contents, not its path: the replay may lack it
        if isinstance(options.get(flag), str):
            options[flag] = json_option(flag, options[flag], Path.cwd())[0]
    environment = {name: env[name] for name in SHAPING_ENVIRONMENT if env.get(name)}
    if options:
        setup["options"] = options
    if environment:
        setup["environment"] = environment
    return setup


def follow_setup(args: argparse.Namespace, parser: argparse.ArgumentParser, setup: dict[str, Any], path: str,
                 env: Mapping[str, str], inferred: bool = False, grants: bool | None = None) -> dict[str, str]:
    """Fill `args` from a cassette's `setup` (provider, prompt, options) and return the environment
    the replay runs with: the caller's, less everything that chooses a provider or shapes requests,
    plus what the cassette recorded. A flag given that differs from the recording is a usage error.
    An `inferred` setup (a cassette that recorded none) knows no options: the flags given stand.
    The recorded options that widen permissions are followed only when `grants` (by default with
    --replay-tools, where nothing runs); otherwise those the user did not give stay off
    (`withheld_options` names them)."""
    # the user's own sources: whose settings files decide the tools of a run that withholds the grants
    args.own_setting_sources = args.setting_sources
    recorded = setup.get("provider")
    if args.provider and recorded and args.provider != recorded:
        raise UsageError(f"the cassette {path} was recorded with provider {recorded}, not {args.provider}: "
                         "a replay takes its provider from the cassette (drop --provider)")
    args.provider = recorded or args.provider
    prompts = setup.get("prompts") or []
    if args.prompt is None:
        args.prompt = prompts[-1] if prompts else None
    elif prompts and args.prompt != prompts[-1] and not inferred:
        raise UsageError(f"the prompt differs from the one the cassette {path} recorded ({_brief(prompts[-1])}): "
                         "a replay sends the recorded prompt (leave -p out)")
    if inferred:
        return {name: value for name, value in env.items()
                if name in SHAPING_ENVIRONMENT or name in MACHINE_ENVIRONMENT or not name.startswith(PROVIDER_PREFIXES)}
    grants = args.replay_tools if grants is None else grants
    options = setup.get("options") or {}
    for dest in SHAPING_OPTIONS:
        flag, default = _flag(parser, dest), parser.get_default(dest)
        given, wanted = _given(args, dest, flag), options.get(flag, default)
        if not _fits(parser, dest, wanted):
            raise UsageError(f"the cassette {path} records {flag} as {_brief(wanted)}, which is not a value it takes")
        if given != default and given != wanted:
            recorded_as = f"recorded with {_brief(wanted)}" if wanted != default else "recorded without it"
            raise UsageError(f"{flag} {_brief(getattr(args, dest))} differs from the cassette {path}, {recorded_as}: "
                             f"a replay takes its options from the cassette (drop {flag})")
        if _widens(dest, wanted) and not grants and given == default:
            continue  # not the user's, and tools run for real: withheld
        if dest == "agents" and not grants and given == default and (safe := without_commands(wanted)) != wanted:
            log.warning(f"the cassette {path} gives its --agents hooks or MCP servers or a permissionMode that grants "
                        "more; this replay runs tools for "
                        "real, so they do not run here. Vouch for the cassette (keep it in a workspace you trust) "
                        "or use --replay-tools, which runs nothing")
            wanted = safe
        setattr(args, dest, wanted)
    kept = {name: value for name, value in env.items() if name in MACHINE_ENVIRONMENT
            or (name not in SHAPING_ENVIRONMENT and not name.startswith(PROVIDER_PREFIXES))}
    return kept | {str(name): str(value) for name, value in (setup.get("environment") or {}).items()}


def withheld_options(args: argparse.Namespace, parser: argparse.ArgumentParser, setup: dict[str, Any]) -> list[str]:
    """The recorded options that widen permissions and that `args` (as `follow_setup` left them)
    do not have, as flags a user could type: `--allowedTools Bash`, `--dangerously-skip-permissions`."""
    options = setup.get("options") or {}
    withheld = []
    for dest in WIDENING_OPTIONS:
        flag, default = _flag(parser, dest), parser.get_default(dest)
        wanted = options.get(flag, default)
        if _widens(dest, wanted) and wanted != default and getattr(args, dest) != wanted:
            values = wanted if isinstance(wanted, list) else [] if isinstance(wanted, bool) else [wanted]
            withheld.append(" ".join([flag] if not values else [f"{flag} {shlex.quote(_cut(v))}" for v in values]))
    return withheld


COMMAND_FIELDS = ("hooks", "mcpServers")  # what an --agents entry can make run: commands of the cassette's author


def _grants(key: str, value: Any) -> bool:
    """Whether an --agents entry's field runs the author's commands, or lets its agent do more
    than the session's mode would (a permissionMode such as acceptEdits)."""
    return key in COMMAND_FIELDS or (key == "permissionMode" and value not in NARROWING_MODES)


def without_commands(agents: Any) -> Any:
    """A recorded --agents value (JSON text) less each agent's hooks, inline MCP servers and a
    granting permissionMode: a cassette someone else wrote must not run commands, or have more
    approved than the user's settings do, on a replay that runs tools for real. Any
    other value is returned as it is (the replay refuses what it cannot read)."""
    if not isinstance(agents, str):
        return agents
    try:
        data = load_json(agents, "the recorded --agents")
    except ValueError:
        return agents
    if not isinstance(data, dict) or not any(isinstance(v, dict) and any(_grants(*item) for item in v.items())
                                             for v in data.values()):
        return agents
    return json.dumps({name: {k: v for k, v in entry.items() if not _grants(k, v)} if isinstance(entry, dict)
                       else entry for name, entry in data.items()}, ensure_ascii=False)


def _widens(dest: str, value: Any) -> bool:
    """Whether a recorded option's value could let more run than the user's own settings do."""
    return dest in WIDENING_OPTIONS and not (dest == "permission_mode" and value in NARROWING_MODES)


def _given(args: argparse.Namespace, dest: str, flag: str) -> Any:
    """The value given for `dest`, as a recording stores it: --agents and --settings as the JSON
    text, whether given as text or as a file."""
    given = getattr(args, dest)
    if flag in ("--agents", "--settings") and isinstance(given, str):
        return json_option(flag, given, Path.cwd())[0]
    return given


def _fits(parser: argparse.ArgumentParser, dest: str, value: Any) -> bool:
    """Whether a recorded option's value is of the kind its flag takes (a cassette is untrusted)."""
    action = next(action for action in parser._actions if action.dest == dest)
    if value is None or value == action.default:
        return True
    if isinstance(action, argparse._StoreTrueAction):
        return isinstance(value, bool)
    if isinstance(action, argparse._AppendAction):
        return isinstance(value, list) and all(isinstance(item, str) for item in value)
    if action.type is int:
        return isinstance(value, int) and not isinstance(value, bool)
    return isinstance(value, str) and (not action.choices or value in action.choices)


def check_model(given: str | None, effective: str, recorded: str | None, path: str) -> str:
    """The model a replay uses: the recorded one; `effective` is what the given --model means."""
    if given and recorded and effective != recorded:
        raise UsageError(f"the cassette {path} was recorded with model {recorded}, not {effective}: "
                         "a replay takes its model from the cassette (drop --model)")
    return recorded or effective


def replay_provider(setup: dict[str, Any], base_url: str | None, path: str) -> Provider:
    """The recorded provider, at the recorded address, with a stand-in key: a replay reads no key,
    base URL or provider from the environment."""
    name = setup.get("provider")
    if name not in KINDS:
        raise UsageError(f"the cassette {path} does not say which provider it was recorded with "
                         f"(setup provider: {name!r}; expected openrouter or anthropic)")
    kind = KINDS[name]
    return select_provider({kind.base_variable: base_url} if base_url else {}, name, dummy_key=REPLAY_KEY)


def narration(setup: dict[str, Any], path: str, inferred: bool = False) -> str:
    """One line saying what a replay replays, for --verbose: never a scripted reply passed off as a model's."""
    from agent.record.show import setup_line

    return f"replaying {path}: {setup_line(setup, inferred)}"


def _cut(text: str) -> str:
    return text if len(text) <= 80 else text[:80] + "..."


def _brief(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:80] + "...'"
