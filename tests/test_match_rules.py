"""Match rules as a team writes them: which JSON paths an `ignore` reaches, what a `scrub` replaces,
what the content preset keeps of a request on either wire, and a hostile `match` section refused
in one line."""

from __future__ import annotations

import pytest

from agent.errors import UsageError
from agent.record.content import content_view
from agent.record.match import MatchRules

BODY = {
    "model": "m",
    "max_tokens": 100,
    "system": [{"type": "text", "text": "Our rules.\n\n- release-notes: Writes notes.\n- Platform: linux", "cache_control": {"type": "ephemeral"}}],
    "tools": [{"name": "Read", "description": "Reads a file.", "input_schema": {"type": "object", "properties": {"file_path": {"type": "string", "description": "where"}}}},
              {"name": "Agent", "description": "Launch one.\n- reviewer: Reviews code.", "input_schema": {"type": "object"}}],
    "messages": [{"role": "user", "content": "at 2026-12-01T10:00:00Z, pid 4242"}, {"role": "assistant", "content": "ok"}],
}


def changed(path: list, value) -> dict:
    import copy

    body = copy.deepcopy(BODY)
    place = body
    for part in path[:-1]:
        place = place[part]
    place[path[-1]] = value
    return body


@pytest.mark.parametrize("ignore, path, hidden", [
    ("$.max_tokens", ["max_tokens"], True),
    ("$.tools[*].description", ["tools", 1, "description"], True),
    ("$.tools[0].description", ["tools", 1, "description"], False),
    ("$.tools[-1].description", ["tools", 1, "description"], True),
    ("$..description", ["tools", 0, "input_schema", "properties", "file_path", "description"], True),
    ("$.messages.*.content", ["messages", 1, "content"], True),
    ("$['system'][0]['text']", ["system", 0, "text"], True),
    ("$.system[0].cache_control", ["system", 0, "text"], False),
])
def test_an_ignore_path_hides_what_it_names_and_nothing_else(ignore, path, hidden):
    sent = changed(path, "something else")
    assert MatchRules().difference(BODY, sent) is not None
    assert (MatchRules((ignore,)).difference(BODY, sent) is None) == hidden


def test_an_ignored_list_item_keeps_the_others_in_place():
    sent = changed(["messages", 0, "content"], "another prompt")
    assert MatchRules(("$.messages[0]",)).difference(BODY, sent) is None
    shorter = dict(BODY, messages=BODY["messages"][:1])
    assert MatchRules(("$.messages[1]",)).difference(BODY, shorter)[0] == "$.messages.length"


def test_scrub_replaces_on_both_sides_with_groups_and_from_a_section():
    sent = changed(["messages", 0, "content"], "at 2026-12-02T11:30:00Z, pid 99")
    assert MatchRules().difference(BODY, sent)[0] == "$.messages[0].content"
    rules = MatchRules.from_flags([], [r"\d{4}-\d\d-\d\dT[\d:]+Z=<time>", r"pid (\d+)=pid <\1-digits>"], None)
    assert rules.difference(BODY, sent)[0] == "$.messages[0].content"  # 4242 and 99 still differ
    rules = MatchRules.from_section({"scrub": [r"\d{4}-\d\d-\d\dT[\d:]+Z", {"pattern": r"pid \d+", "replacement": "pid N"}]}, "c.yaml")
    assert rules.difference(BODY, sent) is None


def test_the_content_preset_keeps_catalog_entries_messages_and_schemas_only():
    view = content_view(BODY)
    assert set(view) == {"model", "system", "tools", "messages"}
    assert view["system"] == [{"type": "text", "text": "- release-notes: Writes notes."}]
    assert view["tools"][0] == {"name": "Read", "description": "", "input_schema": {"type": "object", "properties": {"file_path": {"type": "string"}}}}
    assert view["tools"][1]["description"] == "- reviewer: Reviews code."
    subagent = content_view({"system": "You review.\n\nEnvironment:\n- Working directory: /x"}, agent="reviewer")
    assert subagent["system"] == "You review."
    chat = content_view({"messages": [{"role": "system", "content": "Rules.\n- a-skill: does a"}, {"role": "user", "content": "hi"}]})
    assert chat["messages"][0]["content"] == "- a-skill: does a"


def test_content_hides_our_texts_but_not_what_the_user_wrote():
    content = MatchRules(preset="content")
    assert content.difference(BODY, changed(["system", 0, "text"], "New rules.\n\n- release-notes: Writes notes.")) is None
    assert content.difference(BODY, changed(["tools", 0, "description"], "Reads any file.")) is None
    assert content.difference(BODY, changed(["system", 0, "text"], "- release-notes: Writes better notes."))[0] == "$.system[0].text"
    assert content.difference(BODY, changed(["messages", 0, "content"], "other")) is not None
    assert "--match content" in MatchRules().hint(BODY, changed(["max_tokens"], 200))
    assert MatchRules().hint(BODY, changed(["messages", 0, "content"], "other")) == ""


@pytest.mark.parametrize("section, message", [
    ("ignore everything", "must be a mapping"),
    ({"ignroe": []}, "unknown key 'ignroe'"),
    ({"ignore": "$.system"}, "ignore must be a list"),
    ({"ignore": [3]}, "each ignore item must be text"),
    ({"ignore": ["system"]}, "must start with $"),
    ({"scrub": ["("]}, "not a regular expression RE2 reads"),
    ({"scrub": [{"pattern": "a", "with": "b"}]}, "each scrub item must be"),
    ({"preset": "everything"}, "preset must be one of content"),
    ({"ignore": ["$.a"] * 201}, "more than 200 rules"),
    ({"ignore": ["$" + "..*" * 300]}, "more than 256 steps"),
])
def test_a_malformed_match_section_is_one_line_naming_the_cassette(section, message):
    with pytest.raises(UsageError) as error:
        MatchRules.from_section(section, "team.yaml")
    assert str(error.value).startswith("cassette team.yaml: its match section: ") and message in str(error.value)
    assert "\n" not in str(error.value)


def test_deep_wildcard_paths_stay_fast_on_a_deep_body():
    deep = value = {}
    for _ in range(99):
        value["a"] = {}
        value = value["a"]
    rules = MatchRules(("$" + "..*" * 60,))
    assert rules.difference(deep, deep) is None
