"""Record and replay: the cassette file and its reviewable YAML form (`cassette_file`, checked in
shape by `shape`, each request stored whole or as a delta on an earlier one by `deltas`),
recording (`cassette`, with the exchanges captured by `capture`) and replaying (`replaying`,
compared under the match rules of `match`), the tool calls that really ran and the approvals
given (`tool_runs`, `approvals`, which replays answer from), the pages WebFetch fetched
(`web_fetches`, which every replay answers from), drift reports (`drift`,
`workspace_drift`), expectations (`expect`), and reading, comparing and checking cassettes
(`show` and `show_request`, `compare`, `check`, the HTML reports of `html_report`; every request
body is read through `bodies`).

May import: `errors`, `conversation`, `secrets`, `workspace`, and yaml/requests. Only a run that
records or replays imports this package, so a plain run never loads it. The model client does not
know about any of it: the CLI mounts a cassette's adapter on the client's `requests.Session`, and
hands the session a ToolRuns as its `tool_runs` hook.
"""
