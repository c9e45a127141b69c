"""A session driven by the Agent SDK (`--input-format stream-json`): the `initialize` request read
first (its agents join --agents, its hook callbacks and the SDK's in-process MCP servers join the
session's), the session built as for `-p`, then one turn per user message until stdin closes,
each turn's lines ending in its `result`. An interrupt stops the running turn as Ctrl-C stops one
at the terminal and the session goes on; an error that ends a `-p` run ends the session the same
way (its result line first). Recorded and replayed like an interactive session: the prompts (and
the approvals given) go into the cassette, and an interrupted turn is left out of it (its prompt
noted, so that a replay through the SDK ends that turn as the interrupt ended it)."""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import json
import logging
import os
import time
from pathlib import Path
from typing import IO, Any, Mapping

from agent.cli.sdk.channel import ENDED, Channel
from agent.cli.sdk.frames import SdkStream
from agent.conversation import Usage
from agent.errors import AgentError, Interrupted, ProviderError, UsageError
from agent.record.shape import INTERRUPTED_TURNS  # {after: how many turns finished before, prompt}

log = logging.getLogger("agent")

MAX_PROMPT_BLOCKS = 1000


def run_sdk(args: argparse.Namespace, env: Mapping[str, str], stdin: IO) -> int:
    """Run an SDK-driven session on `stdin` and stdout; returns the exit code."""
    if args.prompt is not None:
        raise UsageError("with --input-format stream-json the prompts come on stdin as user messages; "
                         "leave the prompt argument out")
    channel = Channel(stdin)
    channel.start()
    first = channel.next_input()
    if first is ENDED:
        raise UsageError("--input-format stream-json: stdin closed before any message")
    initialize = first if first.get("type") == "control_request" else None
    waiting = [] if initialize is not None else [first]  # a client that sends no initialize starts with a message
    if initialize is not None:
        try:
            take_initialize(args, initialize["request"])
        except UsageError as error:
            channel.refuse(initialize["request_id"], str(error))
            raise
    args.sdk_channel = channel  # for the hook callbacks and the SDK's MCP servers (agent.cli.build)
    started = time.monotonic()
    try:
        session, conversation, stream, recorded, environment, ending = _build(args, env, channel)
    except AgentError as error:
        if initialize is not None:
            channel.refuse(initialize["request_id"], str(error))
        raise
    try:
        if initialize is not None:
            from agent.cli.sdk.control import initialize_answer

            channel.respond(initialize["request_id"], initialize_answer(session, conversation.agent))
        return _converse(args, channel, session, conversation, stream, recorded, environment, ending, waiting, started)
    finally:
        from agent.cli.mcp_setup import stop_servers

        stop_servers(session)


def take_initialize(args: argparse.Namespace, request: dict[str, Any]) -> None:
    """What the SDK's `initialize` carries that shapes the session, put where the flags would have
    put it: its agents join --agents (the SDK never passes that flag), its skills list is kept to
    narrow the skills offered, its hooks are kept for the session's hooks engine."""
    agents = request.get("agents")
    if agents is not None:
        if not isinstance(agents, dict):
            raise UsageError("initialize: agents must be an object of agent definitions")
        given: dict[str, Any] = {}
        if args.agents:
            from agent.workspace import json_option, load_json

            given = load_json(json_option("--agents", args.agents, Path.cwd())[0], "--agents")
            given = given if isinstance(given, dict) else {}
        args.agents = json.dumps({**given, **agents}, ensure_ascii=False)  # recorded as --agents is
    skills = request.get("skills")
    if skills is not None and not (isinstance(skills, list) and all(isinstance(s, str) for s in skills)):
        raise UsageError("initialize: skills must be a list of skill names")
    args.sdk_skills = skills
    hooks = request.get("hooks")
    if hooks is not None and not isinstance(hooks, dict):
        raise UsageError("initialize: hooks must be an object of events")
    args.sdk_hooks = hooks or None
    for ignored in ("excludeDynamicSections", "systemPromptSnapshot", "forwardSubagentText"):
        if request.get(ignored):
            log.info("initialize: %s is not supported; ignored", ignored)


def _build(args: argparse.Namespace, env: Mapping[str, str], channel: Channel):
    """The session (and its main conversation) as `agent.cli.build.run` builds one for `-p`."""
    from agent.cli.build import build_session
    from agent.cli.cassette_run import replay_setup
    from agent.cli.environment import Environment
    from agent.cli.outcomes import Ending
    from agent.cli.sdk.approvals import session_approver
    from agent.cli.sdk.control import Control
    from agent.cli.trust import own_trust
    from agent.run import MainConversation

    own = Environment(env)
    trusted = own_trust(args, own, Path.cwd(), Path.home())
    recorded, env = replay_setup(args, env, trusted)
    ending = Ending()
    ending.expect(recorded, args)
    environment = Environment(env)
    stream = SdkStream(args.include_partial_messages, args.include_hook_events,
                       states=bool(os.environ.get("CLAUDE_CODE_SDK_READS_SESSION_STATE")))
    session, history = build_session(args, environment, stream, recorded, trusted)
    if getattr(args, "sdk_skills", None) is not None:  # initialize named the skills: only those are offered
        session.skills = {name: skill for name, skill in session.skills.items() if name in args.sdk_skills}
    session.observer = ending.watching(session.observer)
    stream.watch_hooks(session)
    stream.watch_tasks(session)
    # the SDK's can_use_tool (a replay answers as the recording's SDK did); without it, refusals are reported
    session.approver = session_approver(args.permission_prompt_tool == "stdio", recorded, channel, stream,
                                        session.approver)
    session.client.limits.thinking(session.model)
    conversation = MainConversation(session, history)
    control = Control(channel, session, stream, lambda: _interrupt(session, channel),
                      recorded=bool(args.record or args.replay))
    control.conversation = conversation
    channel.on_request = control
    return session, conversation, stream, recorded, environment, ending


def _interrupt(session, channel: Channel) -> None:
    """Stop the running turn, as Ctrl-C does: every agent stops at its next step, the commands
    running are killed, and questions still waiting for the SDK's answer are given up."""
    from agent.tools.shell import kill_running

    session.cancelled.set()
    kill_running()
    channel.cancel_waits("interrupted")


def _converse(args, channel: Channel, session, conversation, stream: SdkStream, recorded, environment, ending,
              waiting: list, started: float) -> int:
    """One turn per user message until stdin closes; returns the exit code."""
    from agent.cli.cassette_run import recording
    from agent.cli.output import incomplete_because
    from agent.hooks.events import session_end

    prompts: list[str] = []  # what a recording stores: the prompts of the turns that finished
    stopped = list(recorded.setup.get(INTERRUPTED_TURNS) or []) if recorded else []  # the recording's interrupted turns
    code, last = 0, None
    with recording(args, session, environment, prompts, recorded=recorded) as taken:
        kept = taken if args.record else None
        try:
            while (message := waiting.pop(0) if waiting else channel.next_input()) is not ENDED:
                if message.get("type") == "control_request":  # a second initialize
                    channel.refuse(message["request_id"], "Already initialized")
                    continue
                prompt = prompt_text(message)
                if prompt is None:
                    continue
                mark = kept.mark() if kept is not None else None
                if stopped and stopped[0] == {"after": len(prompts), "prompt": prompt}:
                    stopped.pop(0)  # replaying a turn an interrupt stopped when it was recorded
                    _replayed_interrupt(session, conversation, stream, started)
                    continue
                result = _turn(session, conversation, stream, prompt, started)
                if result is None:  # interrupted: left out of the recording, the session goes on
                    if mark is not None:  # noted, so that a replay ends this turn as it ended here
                        kept.leave_out_since(mark)
                        kept.setup.setdefault(INTERRUPTED_TURNS, []).append({"after": len(prompts), "prompt": prompt})
                    continue
                prompts.append(prompt)
                ending.turned(result)
                last = result
                code = 1 if incomplete_because(result, session) else 0
            session.background.finish()  # agents a turn limit left running end before the session does
            session_end(session, "other")
        except AgentError as exc:
            ending.failed(exc, kept)
            with contextlib.suppress(AgentError):
                session_end(session, "other")
            raise
        if last is not None:
            ending.finished(last, session, kept)
    if last is not None:
        ending.compare()
    if args.record and taken.unwritten:
        session.unwritten.append(taken.unwritten)
    for line in ending.unmet():
        log.error("%s", line)
    return 1 if code or ending.unmet() else 0


def _turn(session, conversation, stream: SdkStream, prompt: str, started: float):
    """One user message answered, its lines and its `result` written; None when an interrupt
    stopped it (its result says so). An error that ends the session is raised, after its result."""
    before = _usage_now(session)
    stream.new_turn(session, conversation.agent)
    stream.state("running")
    try:
        result = conversation.turn(prompt)
    except Interrupted:
        _stopped(session, stream, started, before)
        return None
    except ProviderError as exc:  # as Claude Code tells the SDK: the error as the model's words, then the result
        stream.api_error(f"API Error: {exc}")
        stream.result("success", f"API Error: {exc}", 0, started, session, is_error=True,
                      terminal_reason="api_error", usage=_usage_since(session, before), errors=[str(exc)])
        stream.state("idle")
        raise
    except AgentError as exc:
        stream.result("error_during_execution", str(exc), 0, started, session, is_error=True,
                      usage=_usage_since(session, before), errors=[str(exc)])
        stream.state("idle")
        raise
    from agent.cli.output import incomplete_because

    problem = incomplete_because(result, session)
    stream.result(result.subtype, result.text.strip(), result.turns, started, session,
                  stop_reason=result.stop_reason, is_error=problem is not None,
                  terminal_reason=result.terminal_reason, usage=_usage_since(session, before),
                  structured_output=result.structured_output)
    if problem:
        log.error("%s", problem)
    stream.state("idle")
    return result


def _stopped(session, stream: SdkStream, started: float, before: Usage) -> None:
    """The end of a turn an interrupt stopped: its open calls answered, then its result."""
    stream.interrupted()
    stream.result("error_during_execution", "", 0, started, session, is_error=True,
                  stop_reason="tool_use", terminal_reason="aborted_tools", usage=_usage_since(session, before))
    stream.state("idle")


def _replayed_interrupt(session, conversation, stream: SdkStream, started: float) -> None:
    """A turn that an interrupt stopped when the session was recorded, replayed: it is not in the
    cassette (its requests could not be answered), so it ends as it ended then, sending nothing.
    The SDK application's own interrupt, if it sends one again, finds nothing running."""
    log.info("this turn was interrupted when it was recorded: it ends the same way, with nothing sent")
    stream.new_turn(session, conversation.agent)
    stream.state("running")
    _stopped(session, stream, started, _usage_now(session))


def _usage_now(session) -> Usage:
    return dataclasses.replace(session.client.usage)  # a copy: the client's keeps growing


def _usage_since(session, before: Usage) -> Usage:
    """The session's usage since `before`: one turn's, as Claude Code's result has it (every
    count of Usage, so a count added there is never left out here)."""
    now = session.client.usage
    return Usage(**{f.name: getattr(now, f.name) - getattr(before, f.name) for f in dataclasses.fields(Usage)})


def prompt_text(message: dict[str, Any]) -> str | None:
    """The prompt a user message carries: its text, or its text blocks joined (other blocks are
    left out, with one warning); None (warned) when it holds no text."""
    inner = message.get("message")
    content = inner.get("content") if isinstance(inner, dict) else None
    if isinstance(content, str):
        text = content
    elif isinstance(content, list):
        blocks = content[:MAX_PROMPT_BLOCKS]
        texts = [block["text"] for block in blocks if isinstance(block, dict) and block.get("type") == "text"
                 and isinstance(block.get("text"), str)]
        if len(texts) < len(content):
            log.warning("a user message's non-text blocks (images, documents) are not supported; sent without them")
        text = "\n\n".join(texts)
    else:
        text = ""
    if not text.strip():
        log.warning("skipped a user message without text")
        return None
    return text
