"""Record and replay: the cassette file and its reviewable YAML form (`cassette_file`), recording
and replaying through vcrpy (`cassette`), the tool calls that really ran (`tool_runs`, which
--replay-tools answers from), drift reports (`drift`), and reading, comparing and checking
cassettes (`show` and `show_request`, `compare`, `check`; every request body is read through
`bodies`).

May import: `errors`, `conversation`, `secrets`, and vcrpy/yaml/requests. Only `cassette` imports vcrpy, and
only a run that records or replays imports it, so a plain run never loads vcrpy. The model client
does not know about any of it: the CLI mounts a cassette on the client's `requests.Session`, and
hands the session a ToolRuns as its `tool_runs` hook.
"""
