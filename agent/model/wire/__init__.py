"""Wire formats: translate the internal conversation to a provider's request body and its reply back.

Each format module offers `PATH` (appended to the base URL), `encode(...)` (what a request asks
beyond the conversation comes as `options.RequestOptions`), `request_headers(...)` (the beta
headers a body needs), `decode(body)`, `error_text(body)` and `assemble(events, on_text)`, which
puts a streamed reply back into the body a non-streaming request returns (its `*_stream` module),
so `decode` reads both. What they parse goes through `provider_json`: depth-limited, tool inputs
without NaN or Infinity.

May import: `conversation`, `errors`, `workspace` only.
"""
