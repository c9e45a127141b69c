"""Record and replay: cassettes (vcrpy set up with a reviewable serializer, workspace and home
written as placeholders, secrets filtered) in `cassette`, and drift reports in `drift`.

May import: `errors`, and vcrpy/yaml/requests. Imported only when a run records or replays, so a
plain run never loads vcrpy. The model client does not know about it: the CLI mounts a cassette
on the client's `requests.Session`.
"""
