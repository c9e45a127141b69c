"""A recorded session as an HTML conversation (`cassette show FILE --html OUT`).

The setup and the prompts first, then each conversation (`session_tree`) as its requests: a
collapsed block per request whose line says who sent it, its tokens and cost and what it did;
inside, the reply's text, each tool call with its arguments and result, the subagents and forked
skills the call started (nested, collapsible), and what the request sent. Recorded hook firings
are lines in place (`show_hooks`): a call's under it, others before or after their request. A request shows only
what it adds to its conversation (new messages, changed fields), never the conversation again,
so the page grows with the session, not with its square; the whole body is one command away.
"""

from __future__ import annotations

import json
from typing import Any, Callable

from agent.record.html_parts import attr, bounded_json, esc, first_line, text_block
from agent.record.session_tree import MAIN, Conversation, Tree, message_texts
from agent.record.mcp_servers import SETUP_KEY as MCP_SERVERS, server_line
from agent.record.show import USAGE_KEYS, agent_name, input_line, setup_line, tokens
from agent.record.show_hooks import run_line

Cost = Callable[[str, dict], "float | None"]  # (model, usage as `show` counts it) -> USD, None when unknown
OPEN_UP_TO = 24  # a session of at most this many requests is shown open; a longer one collapsed


class SessionPage:
    """Renders one session: `view`'s object, its tree and the cost of a request."""

    def __init__(self, session: dict[str, Any], tree: Tree, cost: Cost | None = None):
        self.session, self.tree, self.cost = session, tree, cost
        self.turns = session["requests"]
        self.open = " open" if len(self.turns) <= OPEN_UP_TO else ""

    def html(self) -> str:
        """The page's body: header, conversations, answer."""
        parts = [self._header()]
        for root in self.tree.roots:
            parts.append(self._conversation(root) if root.agent in MAIN else self._subagent(root))
        parts.append(hooks_html(self.session.get("hooks_at_end", [])))
        if self.session["answer"] is not None:
            parts.append(f'<div class="bubble answer" id="answer"><span class="label">answer</span>{text_block(self.session["answer"])}</div>')
        return "\n".join(parts)

    def _header(self) -> str:
        setup, usage = self.session["setup"], self.session["usage"]
        lines = [f'<header><h1>cassette {esc(self.session["cassette"])}</h1>',
                 f'<div class="meta" id="setup">{esc(setup_line(setup, self.session["setup_inferred"]))}</div>']
        extras = [f"{flag} {json.dumps(value, ensure_ascii=False)}" for flag, value in (setup.get("options") or {}).items()]
        extras += [f"{name}={value}" for name, value in (setup.get("environment") or {}).items()]
        if extras:
            lines.append(f'<div class="meta">options: {esc("; ".join(extras))}</div>')
        lines += [f'<div class="meta">MCP server {esc(server_line(server))}</div>' for server in setup.get(MCP_SERVERS) or []]
        total = self._total_cost()
        lines.append(f'<div class="meta" id="totals"><span>{usage["requests"]:,} requests</span><span>{esc(tokens(usage))}</span>'
                     f'<span>{esc(_dollars(total) if total is not None else "cost unknown (a model without a price)")}</span>'
                     + ('<span><a href="#answer">the answer</a></span>' if self.session["answer"] is not None else "") + '</div>')
        lines += [f'<div class="meta">prompt: {esc(first_line(prompt, 160))}</div>'
                  for prompt in setup.get("prompts") or [] if isinstance(prompt, str)]
        return "\n".join(lines) + "</header>"

    def _conversation(self, conversation: Conversation) -> str:
        parts = [f'<div class="conv" data-conversation="{conversation.number}">']
        parts += [self._request(index, conversation, position == 0) for position, index in enumerate(conversation.requests)]
        return "\n".join(parts) + "</div>"

    def _subagent(self, conversation: Conversation) -> str:
        usage = dict.fromkeys(USAGE_KEYS, 0)
        for index in conversation.requests:
            for key in USAGE_KEYS:
                usage[key] += (self.turns[index].get("usage") or {}).get(key, 0)
        count = len(conversation.requests)
        task = first_line(conversation.task, 90)
        return (f'<details class="sub" data-agent="{attr(conversation.agent)}" data-depth="{conversation.depth}"{self.open}>'
                f'<summary><span class="who">{esc(agent_name(conversation.agent))}</span> · {count:,} request{"s" if count > 1 else ""}'
                f' · {esc(tokens(usage))}{" · " + esc(task) if task else ""}</summary>{self._conversation(conversation)}</details>')

    def _request(self, index: int, conversation: Conversation, first: bool) -> str:
        turn, step = self.turns[index], self.tree.steps[index]
        said = [text for message in step.added if isinstance(message, dict) and message.get("role") == "user"
                for text in message_texts(message) if text.strip()]
        label = ("prompt" if conversation.agent in MAIN else "task") if first else "user"
        bubbles = "".join(f'<div class="bubble prompt"><span class="label">{label}</span>{text_block(text)}</div>' for text in said)
        head = [f'<b>request {turn["number"]}</b>', f'<span class="who">{esc(agent_name(turn["agent"]))}</span>']
        if turn.get("model"):
            head.append(esc(turn["model"]))
        body = []
        if turn.get("error"):
            head.append(f'<span class="error-line">{esc(first_line(turn["error"]))}</span>')
            body.append(f'<div class="error-line">{esc(turn["error"])}</div>')
        else:
            head.append(esc(tokens(turn["usage"])))
            price = self.cost(turn.get("model") or "", turn["usage"]) if self.cost else None
            if price is not None:
                head.append(esc(_dollars(price)))
            head.append(f'<span class="gist">{esc(_gist(turn))}</span>')
            if turn.get("text"):
                body.append(f'<div class="reply">{text_block(turn["text"])}</div>')
            body += [self._call(call, conversation) for call in turn["tool_calls"]]
            if turn.get("stop_reason") not in (None, "end_turn", "tool_use"):
                body.append(f'<div class="muted">stopped: {esc(turn["stop_reason"])}</div>')
        body.append(self._sent(index, first))
        before, after = (hooks_html(turn.get(side, [])) for side in ("hooks_before", "hooks_after"))
        return (f'{before}{bubbles}<details class="req" id="request-{turn["number"]}" data-request="{turn["number"]}"{self.open}>'
                f'<summary>{" · ".join(head)}</summary><div class="body">{"".join(body)}</div></details>{after}')

    def _call(self, call: dict[str, Any], conversation: Conversation) -> str:
        result = call.get("result")
        error = " error" if call.get("is_error") else ""
        if result is None:
            shown, gist = '<div class="result muted">(no result recorded: the run ended here)</div>', ""
        else:
            shown, gist = f'<div class="result">{text_block(result, "code")}</div>', "← " + first_line(result, 80)
        arguments = json.dumps(call.get("input"), ensure_ascii=False, indent=2)
        children = "".join(self._subagent(self.tree.conversations[number]) for number in conversation.children.get(call["id"], []))
        return (f'<div class="call{error}" data-tool="{attr(call["name"])}"><details><summary><span class="tool">{esc(call["name"])}</span>'
                f'(<code>{esc(input_line(call.get("input"))[:300])}</code>) <span class="gist">{esc(gist)}</span></summary>'
                f'<div class="args">{text_block(arguments, "code")}</div>{shown}</details>{hooks_html(call.get("hooks", []))}'
                f'{children}</div>')

    def _sent(self, index: int, first: bool) -> str:
        step, number = self.tree.steps[index], index + 1
        added = len(step.added)
        what = [f"{added} new message{'s' if added != 1 else ''}" if added or first else "its messages again (a retry)"]
        if step.fields:
            what.append(("fields " if first else "changed ") + ", ".join(step.fields))
        if step.removed:
            what.append("dropped " + ", ".join(step.removed))
        shown: dict[str, Any] = dict(step.fields)
        if step.removed:
            shown["(dropped)"] = step.removed
        shown["(new messages)" if not first else "messages"] = step.added
        return (f'<details class="request-body"><summary>what request {number} sent{" (the first of its conversation)" if first else ""}: '
                f'{esc("; ".join(what))}</summary><pre>{esc(bounded_json(shown))}</pre><div class="muted">the whole body: '
                f'<code>cassette show FILE --request {number} --raw</code></div></details>')

    def _total_cost(self) -> float | None:
        if self.cost is None:
            return None
        total = 0.0
        for turn in self.turns:
            if turn.get("error"):
                continue
            price = self.cost(turn.get("model") or "", turn["usage"])
            if price is None:
                return None
            total += price
        return total


def hooks_html(firings: list[dict[str, Any]]) -> str:
    """Recorded hook firings (`show_hooks`), a line each: the moment, the agent, each command with
    its exit code and what it decided."""
    parts = []
    for shown in firings:
        runs = "".join(f'<div class="hook-run"><code>{esc(run_line(run))}</code></div>' for run in shown["runs"])
        parts.append(f'<div class="hook" data-event="{attr(shown["event"])}"><span class="label">hook</span> '
                     f'<b>{esc(shown["moment"])}</b> · {esc(shown["agent"])}{runs or " · no command ran"}</div>')
    return "".join(parts)


def _gist(turn: dict[str, Any]) -> str:
    """What a request's reply did, in one line: its tool calls, or its text's first line."""
    calls = turn.get("tool_calls") or []
    if calls:
        named = [f"{call['name']}({input_line(call.get('input'))[:60]})" for call in calls[:3]]
        return "→ " + ", ".join(named) + (f" +{len(calls) - 3} more" if len(calls) > 3 else "")
    return first_line(turn.get("text") or "")


def _dollars(value: float) -> str:
    return f"${value:,.4f}"
