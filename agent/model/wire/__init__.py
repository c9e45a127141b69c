"""Wire formats: translate the internal conversation to a provider's request body and its reply back.

Each format module offers `PATH` (appended to the base URL), `encode(...)`, `decode(body)` and
`error_text(body)`.

May import: `conversation`, `errors` only.
"""
