"""The model: everything about talking to a provider.

`providers` picks the endpoint and resolves model aliases; `client` sends each request over one
`requests.Session` (so a cassette sees them all), never following a redirect, each attempt
within the one deadline of `deadline`, `retry` deciding what is tried again, and `--trace`;
`wire` translates the internal conversation to a provider's format and back; `pricing` turns
usage into dollars.

May import: `conversation`, `errors`, `workspace`, `secrets` only.
"""
