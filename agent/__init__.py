"""agent: a record-and-replay testable re-implementation of the Claude Code terminal agent."""

__version__ = "0.1.0"
