"""The run's compaction rules from its flag and variables: --autocompact (auto, or a window of at
least 100,000 tokens) wins over CLAUDE_CODE_AUTO_COMPACT_WINDOW; CLAUDE_AUTOCOMPACT_PCT_OVERRIDE
lowers the threshold; DISABLE_AUTO_COMPACT turns compaction off (see agent.compaction.settings)."""

from __future__ import annotations

import argparse

from agent.compaction.settings import CompactionSettings, window_value
from agent.errors import UsageError


def compaction_settings(args: argparse.Namespace, environment) -> CompactionSettings:
    """The compaction settings of a run (a bad --autocompact or percentage is a usage error)."""
    window = environment["CLAUDE_CODE_AUTO_COMPACT_WINDOW"]
    if getattr(args, "autocompact", None) is not None:
        try:
            window = window_value(args.autocompact, "--autocompact")
        except ValueError as error:
            raise UsageError(str(error)) from None
    percent = environment["CLAUDE_AUTOCOMPACT_PCT_OVERRIDE"]
    if percent is not None and percent > 100:
        raise UsageError(f"CLAUDE_AUTOCOMPACT_PCT_OVERRIDE must be a whole number from 1 to 100, not {percent}")
    return CompactionSettings(window, percent, bool(environment["DISABLE_AUTO_COMPACT"]))
