"""Unit tests for provider selection: which endpoint a run talks to, with which key and model."""

from __future__ import annotations

import pytest

from agent.errors import UsageError
from agent.model.providers import join_url, select_provider
from agent.model.wire import chat, messages

OR_KEY = "sk-or-v1-test"
AN_KEY = "sk-ant-test"


def path_of(url: str) -> str:
    return url.split("://", 1)[1]


# --- join_url ---------------------------------------------------------------------------------------

@pytest.mark.parametrize(
    "base",
    [
        "http://localhost:10000/api/v1",
        "http://localhost:10000/api/v1/",
        "http://localhost:10000/api/v1//",
        "http://localhost:10000/api/v1///",
    ],
)
def test_join_url_never_doubles_slashes(base):
    url = join_url(base, chat.PATH)
    assert url == "http://localhost:10000/api/v1/chat/completions"
    assert "//" not in path_of(url)


def test_join_url_with_leading_slash_in_path():
    assert join_url("http://localhost:10000/api/v1/", "/chat/completions") == "http://localhost:10000/api/v1/chat/completions"


def test_join_url_anthropic_default():
    assert join_url("https://api.anthropic.com", messages.PATH) == "https://api.anthropic.com/v1/messages"
    assert join_url("https://api.anthropic.com/", messages.PATH) == "https://api.anthropic.com/v1/messages"


# --- select_provider --------------------------------------------------------------------------------

def test_openrouter_key_only():
    provider = select_provider({"OPENROUTER_API_KEY": OR_KEY})
    assert provider.name == "openrouter"
    assert provider.url == "https://openrouter.ai/api/v1/chat/completions"
    assert provider.headers == {"authorization": f"Bearer {OR_KEY}"}
    assert provider.default_model == "anthropic/claude-haiku-4.5"
    assert provider.wire is chat
    assert provider.key_variable == "OPENROUTER_API_KEY"


def test_anthropic_key_only():
    provider = select_provider({"ANTHROPIC_API_KEY": AN_KEY})
    assert provider.name == "anthropic"
    assert provider.url == "https://api.anthropic.com/v1/messages"
    assert provider.headers == {"x-api-key": AN_KEY, "anthropic-version": "2023-06-01"}
    assert "authorization" not in {k.lower() for k in provider.headers}
    assert provider.default_model == "claude-haiku-4-5"
    assert provider.wire is messages
    assert provider.key_variable == "ANTHROPIC_API_KEY"


def test_both_keys_prefers_openrouter():
    provider = select_provider({"OPENROUTER_API_KEY": OR_KEY, "ANTHROPIC_API_KEY": AN_KEY})
    assert provider.name == "openrouter"
    assert provider.headers == {"authorization": f"Bearer {OR_KEY}"}


def test_requested_anthropic_with_both_keys():
    provider = select_provider({"OPENROUTER_API_KEY": OR_KEY, "ANTHROPIC_API_KEY": AN_KEY}, requested="anthropic")
    assert provider.name == "anthropic"
    assert provider.headers["x-api-key"] == AN_KEY


def test_agent_provider_env_respected():
    env = {"OPENROUTER_API_KEY": OR_KEY, "ANTHROPIC_API_KEY": AN_KEY, "AGENT_PROVIDER": "anthropic"}
    assert select_provider(env).name == "anthropic"


def test_requested_wins_over_agent_provider():
    env = {"OPENROUTER_API_KEY": OR_KEY, "ANTHROPIC_API_KEY": AN_KEY, "AGENT_PROVIDER": "anthropic"}
    assert select_provider(env, requested="openrouter").name == "openrouter"


def test_empty_agent_provider_is_ignored():
    assert select_provider({"ANTHROPIC_API_KEY": AN_KEY, "AGENT_PROVIDER": ""}).name == "anthropic"


@pytest.mark.parametrize(
    "env, requested, variable",
    [
        ({"OPENROUTER_API_KEY": OR_KEY}, "anthropic", "ANTHROPIC_API_KEY"),
        ({"ANTHROPIC_API_KEY": AN_KEY}, "openrouter", "OPENROUTER_API_KEY"),
        ({"OPENROUTER_API_KEY": OR_KEY, "AGENT_PROVIDER": "anthropic"}, None, "ANTHROPIC_API_KEY"),
    ],
)
def test_requested_provider_without_its_key(env, requested, variable):
    with pytest.raises(UsageError) as info:
        select_provider(env, requested=requested)
    assert variable in str(info.value)
    assert info.value.exit_code == 2


def test_no_keys_names_openrouter_variable():
    with pytest.raises(UsageError) as info:
        select_provider({})
    assert "OPENROUTER_API_KEY" in str(info.value)
    assert info.value.exit_code == 2


def test_empty_key_counts_as_missing():
    with pytest.raises(UsageError, match="OPENROUTER_API_KEY"):
        select_provider({"OPENROUTER_API_KEY": ""})


@pytest.mark.parametrize("env, requested", [({"OPENROUTER_API_KEY": OR_KEY}, "gemini"), ({"OPENROUTER_API_KEY": OR_KEY, "AGENT_PROVIDER": "openai"}, None)])
def test_unknown_provider_name(env, requested):
    with pytest.raises(UsageError) as info:
        select_provider(env, requested=requested)
    assert (requested or env["AGENT_PROVIDER"]) in str(info.value)
    assert info.value.exit_code == 2


def test_dummy_key_not_used_when_real_key_present():
    provider = select_provider({"OPENROUTER_API_KEY": OR_KEY}, dummy_key="dummy")
    assert provider.headers == {"authorization": f"Bearer {OR_KEY}"}
    provider = select_provider({"ANTHROPIC_API_KEY": AN_KEY}, dummy_key="dummy")
    assert provider.name == "anthropic"
    assert provider.headers["x-api-key"] == AN_KEY


def test_dummy_key_stands_in_when_key_missing():
    provider = select_provider({}, dummy_key="dummy")
    assert provider.name == "openrouter"
    assert provider.headers == {"authorization": "Bearer dummy"}
    provider = select_provider({}, requested="anthropic", dummy_key="dummy")
    assert provider.name == "anthropic"
    assert provider.headers["x-api-key"] == "dummy"


def test_openrouter_base_url_env_respected():
    provider = select_provider({"OPENROUTER_API_KEY": OR_KEY, "OPENROUTER_BASE_URL": "http://localhost:10000/api/v1/"})
    assert provider.url == "http://localhost:10000/api/v1/chat/completions"
    assert "//" not in path_of(provider.url)


def test_anthropic_base_url_env_respected():
    env = {"ANTHROPIC_API_KEY": AN_KEY, "ANTHROPIC_BASE_URL": "http://127.0.0.1:9999/"}
    assert select_provider(env).url == "http://127.0.0.1:9999/v1/messages"


def test_base_url_of_other_provider_is_ignored():
    env = {"OPENROUTER_API_KEY": OR_KEY, "ANTHROPIC_BASE_URL": "http://127.0.0.1:9999"}
    assert select_provider(env).url == "https://openrouter.ai/api/v1/chat/completions"
