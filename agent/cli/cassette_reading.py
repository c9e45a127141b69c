"""`cassette show FILE [--request N [--raw]] [--json] [--html OUT]` and `cassette diff A B`:
reading recorded sessions, never replaying them. Cassettes are read as their files hold them:
the folders stay `{{workspace}}` and `{{home}}`. The wire format's own code reads the replies
(streamed ones put back together by its `assemble`), and the hooks package what a recorded hook
decided; `agent.record` gets them as callables, since it may not import either.
"""

from __future__ import annotations

import argparse
import json
import sys

from agent.cli.build import check_writable
from agent.cli.visible import json_shown, shown
from agent.errors import ProviderError, UsageError
from agent.record.cassette_file import CassetteFile, read
from agent.record.show import Wire

PLACEHOLDERS = ("{{workspace}}", "{{home}}")


def show(args: argparse.Namespace) -> int:
    """`cassette show`: the whole session, or one request (`--request N`), for a person, as JSON,
    or (`--raw`) the request body exactly as sent."""
    from agent.record import show as session_view
    from agent.record.bodies import request_body
    from agent.record.show_request import request_text

    if args.raw and args.request is None:
        raise UsageError("--raw prints one request's body: give --request N")
    if args.raw and args.json:
        raise UsageError("give --raw or --json, not both (--raw prints the body as JSON already)")
    if args.html and (args.json or args.request is not None):
        raise UsageError("--html writes the whole session as a page: give it without --json, --request and --raw")
    check_writable("--html", args.html)
    cassette = read(args.file)
    wire = wire_reader(cassette)
    if args.html:
        from agent.cli.cassette_html import write_session_report

        write_session_report(args.html, cassette, wire)
        return 0
    if args.request is None:
        session = session_view.view(cassette, wire)
        if args.json:
            print(json_shown(json.dumps(session, ensure_ascii=False, indent=2), sys.stdout))
        else:
            print(shown(session_view.text(session), sys.stdout))
        return 0
    count = len(cassette.interactions)
    if not 1 <= args.request <= count:
        raise UsageError(f"cassette {args.file} holds {count} request{'s' if count > 1 else ''}: "
                         f"--request takes 1 to {count}, not {args.request}")
    index = args.request - 1
    if args.raw:
        body = json.dumps(request_body(cassette, index), ensure_ascii=False, indent=2)
        held = [name for name in PLACEHOLDERS if name in body]
        if held:
            print(f"note: folders are shown as the cassette holds them: {' and '.join(held)}", file=sys.stderr)
        print(json_shown(body, sys.stdout))
    elif args.json:
        interaction = cassette.interactions[index]
        exchange = {"request": request_body(cassette, index), "response": interaction.response,
                    "agent": interaction.agent, "status": interaction.status}
        print(json_shown(json.dumps(exchange, ensure_ascii=False, indent=2), sys.stdout))
    else:
        print(shown(request_text(cassette, index, wire), sys.stdout))
    return 0


def diff(args: argparse.Namespace) -> int:
    """`cassette diff A B`: 0 when the recordings are alike under the match rules (both
    cassettes' `match` sections and the flags), 1 when they differ."""
    from agent.record import compare
    from agent.record.match import MatchRules

    a, b = read(args.a), read(args.b)
    rules = (MatchRules.from_section(a.match, args.a).merged(MatchRules.from_section(b.match, args.b))
             .merged(MatchRules.from_flags(args.match_ignore, args.match_scrub, args.match_preset)))
    comparison = compare.compare(a, b, rules)
    print(shown(compare.text(comparison, args.a, args.b, ruled=not rules.empty), sys.stdout))
    return 1 if comparison.differs else 0


def wire_reader(cassette: CassetteFile) -> Wire:
    """The reading half of the cassette's wire format (chat or messages)."""
    from agent.model import sse
    from agent.model.wire import chat, messages
    from agent.model.wire.messages_stream import BrokenStream

    wire = {"chat": chat, "messages": messages}.get(cassette.setup.get("wire"))
    if wire is None:
        raise UsageError(f"cassette {cassette.path}: unknown wire format {cassette.setup.get('wire')!r}")

    def assemble(stream: str):
        try:  # split at line breaks only: a JSON text may hold a U+2028 that splitlines() would cut at
            return wire.assemble(sse.events(stream.split("\n")), lambda piece: None)
        except BrokenStream:
            raise ProviderError("the recorded stream ends before the reply does") from None

    return Wire(wire.decode, wire.error_text, assemble, hook_decided)


def hook_decided(event: str, command: str, run: dict) -> str:
    """What a recorded hook run decided, in --verbose's words, with what a decision came with:
    `blocked: …`, `allow, changed the input`, `added context`, `non-blocking error: …`, `no effect`."""
    from agent.hooks.answers import read_answer
    from agent.hooks.running import HookRun

    answer = read_answer(event, command, HookRun.from_entry(run))
    said = [answer.summary().replace(f"[{command}]: ", "", 1)]  # a block's reason repeats the command
    if answer.block is None and (answer.decision or answer.error):  # the summary names only those
        said += [words for words, done in (("changed the input", answer.updated_input),
                                           ("added context", answer.context or answer.plain),
                                           ("asked to stop", answer.stop is not None)) if done]
    if answer.system_message:
        said.append(f"told the user: {' '.join(answer.system_message.split())[:120]}")
    return ", ".join(said)
