"""The web tools. WebFetch (`fetch_tool`): a URL checked and upgraded to https (`urls`), fetched
with Claude Code's caps and redirect rule (`fetching`), kept 15 minutes (`cache`), its HTML turned
into Markdown (`markdown`), and read with the call's prompt by a second model request through the
session's client (`reading`). Every network fetch goes through the session's `web_fetches` hook
when a run records or replays (agent.record.web_fetches), so a replay never touches the network.
WebSearch (`web_search`): one request of its own through the session's client with the provider's
web search (Anthropic's server tool, OpenRouter's web plugin), recorded like every request.

May import what `agent.tools` may; reaches the session, its client and the recording only through
the tool's context object.
"""
