"""A recorded session as a tree of conversations: which requests continue which conversation,
what each request adds to it, and which tool call started each subagent or forked skill.

A cassette labels each request with the agent that sent it (`main`, a subagent type, or
`skill:<name>` for a forked skill), but several conversations can share a label: two parallel
subagents of one type, the same type started twice, a nested subagent. So conversations are found
from the bodies: a request continues the open conversation of its agent whose last request's
messages it extends (the same first message and the same message where that request ended), or
repeats after a failed reply (a retry), and starts a new one otherwise. A child conversation is then hung under the Agent or Skill call that
started it: a call of the right kind, made before the child's first request, whose caller's next
request (the one carrying the call's result) comes after the child's last; among those, the one
whose prompt is the child's task and whose result holds the child's report, the earliest first.
Each step is cheap (a few message comparisons per request), so a long session reads in time
linear in its length.
"""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass, field
from typing import Any, Iterable

MAX_DEPTH = 16  # deeper children are shown at the top level: a hostile cassette cannot nest without end
MAIN = (None, "main")


@dataclass
class Step:
    """What request `index` (0-based) adds to conversation `conversation`: its new messages since
    that conversation's previous request (all of them for its first), and the top-level fields
    that are new or changed (all of them for the first), and those it dropped."""

    index: int
    conversation: int
    added: list[Any]
    fields: dict[str, Any]
    removed: list[str] = field(default_factory=list)


@dataclass
class Conversation:
    """One conversation: its agent, its requests (0-based, in order), the task it was given (its
    first user text), the call that started it (request index, call id; None for a root) and
    its children by the id of the call that started them."""

    number: int
    agent: str | None
    requests: list[int] = field(default_factory=list)
    task: str = ""
    parent: tuple[int, str] | None = None
    depth: int = 0
    children: dict[str, list[int]] = field(default_factory=dict)


@dataclass
class Tree:
    conversations: list[Conversation]
    steps: list[Step]

    @property
    def roots(self) -> list[Conversation]:
        """The conversations started by no recorded call (the main one, a forked skill a slash
        command ran), in the order they began."""
        return [c for c in self.conversations if c.parent is None]


def session_tree(bodies: Iterable[Any], agents: list[str | None], turns: list[dict[str, Any]]) -> Tree:
    """The tree of the requests whose `bodies` (in cassette order) were sent by `agents`;
    `turns` are `agent.record.show.view`'s requests (their tool calls with results)."""
    conversations: list[Conversation] = []
    steps: list[Step] = []
    last: dict[int, dict] = {}  # conversation -> the body of its latest request
    sent: dict[int, list] = {}  # conversation -> the messages of its latest request
    of_agent: dict[str | None, list[int]] = {}  # agent -> its conversations, in the order they began
    for index, body in enumerate(bodies):
        body = body if isinstance(body, dict) else {}
        messages = body.get("messages") if isinstance(body.get("messages"), list) else []
        agent = agents[index]
        number = _continued(of_agent.get(agent, []), sent, messages, conversations, turns)
        if number is None:
            number = len(conversations)
            of_agent.setdefault(agent, []).append(number)
            conversations.append(Conversation(number, agent, task=first_user_text(messages)))
            steps.append(Step(index, number, list(messages), {k: v for k, v in body.items() if k != "messages"}))
        else:
            previous, kept = last[number], len(sent[number])
            changed = {k: v for k, v in body.items() if k != "messages" and (k not in previous or not _same(previous[k], v))}
            removed = [k for k in previous if k not in body]
            steps.append(Step(index, number, messages[kept:], changed, removed))
        conversations[number].requests.append(index)
        last[number], sent[number] = body, messages
    _hang_children(conversations, turns)
    return Tree(conversations, steps)


def _continued(candidates: list[int], sent: dict[int, list], messages: list, conversations: list[Conversation],
               turns: list[dict[str, Any]]) -> int | None:
    """The conversation among `candidates` (one agent's) that `messages` extend, the latest
    such; None when none does. Two parallel conversations on one task extend alike: the one whose
    last reply made the tool calls the next message carries back is taken first."""
    if not messages:
        return None
    fitting = []
    for number in reversed(candidates):
        before, failed = sent[number], "error" in turns[conversations[number].requests[-1]]
        # the same messages again, after a reply that failed, is that request retried
        longer = len(before) < len(messages) or (failed and len(before) == len(messages))
        if before and longer and _same(before[0], messages[0]) and _same(before[-1], messages[len(before) - 1]):
            fitting.append(number)
    for number in fitting:
        calls = {call.get("id") for call in turns[conversations[number].requests[-1]].get("tool_calls") or []}
        if calls and len(sent[number]) < len(messages) and calls == _call_ids(messages[len(sent[number])]):
            return number
    return fitting[0] if fitting else None


def _call_ids(message: Any) -> set:
    """The ids of the tool calls an assistant message holds, on either wire."""
    if not isinstance(message, dict):
        return set()
    listed = message.get("tool_calls") if isinstance(message.get("tool_calls"), list) else []
    blocks = message.get("content") if isinstance(message.get("content"), list) else []
    return ({call.get("id") for call in listed if isinstance(call, dict)}
            | {block.get("id") for block in blocks if isinstance(block, dict) and block.get("type") == "tool_use"})


def _same(a: Any, b: Any) -> bool:
    return a is b or a == b


def first_user_text(messages: list) -> str:
    """The user's text of a conversation's first request (its task), when no assistant turn came
    yet: plain contents and text blocks, each on its own paragraph."""
    if any(isinstance(m, dict) and m.get("role") == "assistant" for m in messages):
        return ""
    parts = [text for m in messages if isinstance(m, dict) and m.get("role") == "user" for text in message_texts(m)]
    return "\n\n".join(parts)


def message_texts(message: dict) -> list[str]:
    """The texts of a message: its content when it is text, else its text blocks or parts."""
    content = message.get("content")
    if isinstance(content, str):
        return [content]
    if isinstance(content, list):
        return [part["text"] for part in content
                if isinstance(part, dict) and part.get("type") == "text" and isinstance(part.get("text"), str)]
    return []


def _hang_children(conversations: list[Conversation], turns: list[dict[str, Any]]) -> None:
    """Give each conversation other than the main one the call that started it (see the module
    docstring), and each such call its children."""
    owner = {index: c.number for c in conversations for index in c.requests}
    starters = []  # (request index, call) of every Agent or Skill call, in order
    for index, turn in enumerate(turns):
        starters.extend((index, call) for call in turn.get("tool_calls") or [] if _started_kind(call))
    taken: set[str] = set()
    for child in conversations:
        if child.agent in MAIN or not child.requests:
            continue
        first, final = child.requests[0], child.requests[-1]
        report = _text_of(turns[final]).strip()
        best, best_score = None, -1
        for index, call in starters:
            if index >= first:
                break
            parent = conversations[owner[index]]
            if call["id"] in taken or parent is child or parent.depth >= MAX_DEPTH or _started_kind(call) != child.agent:
                continue
            after = bisect_right(parent.requests, index)  # the caller's next request carries the call's result
            if after < len(parent.requests) and parent.requests[after] < final:
                continue
            score = 2 * _prompted(call, child.task) + (bool(report) and report in str(call.get("result") or ""))
            if score > best_score:
                best, best_score = (index, call), score
        if best is None:
            continue
        index, call = best
        taken.add(call["id"])
        parent = conversations[owner[index]]
        child.parent, child.depth = (index, call["id"]), parent.depth + 1
        parent.children.setdefault(call["id"], []).append(child.number)


def _started_kind(call: dict[str, Any]) -> str | None:
    """The agent label of what a call starts: its subagent type for Agent (general-purpose when
    it names none), `skill:<name>` for Skill; None for other tools."""
    arguments = call.get("input") if isinstance(call.get("input"), dict) else {}
    if call.get("name") == "Agent":
        kind = arguments.get("subagent_type")
        return kind.strip() if isinstance(kind, str) and kind.strip() else "general-purpose"
    if call.get("name") == "Skill" and isinstance(arguments.get("skill"), str):
        return "skill:" + arguments["skill"].strip().removeprefix("/")
    return None


def _prompted(call: dict[str, Any], task: str) -> bool:
    prompt = (call.get("input") or {}).get("prompt") if isinstance(call.get("input"), dict) else None
    return call.get("name") == "Skill" or (isinstance(prompt, str) and bool(prompt.strip()) and prompt.strip() in task)


def _text_of(turn: dict[str, Any]) -> str:
    return turn.get("text") if isinstance(turn.get("text"), str) else ""
