"""Secrets: the values the agent must never write or print (the provider keys, and every variable of
ours whose name says key, token or secret), taken out of the process environment once at start
(`environ`), and `redact`, the one rule that removes them, in every form a command or a provider
can spell them, from whatever is written or printed (`redact`).

May import: nothing of the agent (the bottom layer: everything that writes or prints uses it).
"""

from agent.secrets.redact import redact, redact_data

__all__ = ["redact", "redact_data"]
