"""WebFetch's cache, as Claude Code's: a page fetched in a session is kept 15 minutes, so another
call for the same URL (reading on at an offset, another prompt) is answered without a fetch. Only
pages that came back whole are kept; the oldest go first past 50 MB of bodies."""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from typing import Callable

from agent.tools.web.fetching import Page

TTL_S = 15 * 60
MAX_BYTES = 50 * 1024 * 1024


class PageCache:
    """URL -> Page for one session (its subagents share it); safe across threads."""

    def __init__(self, clock: Callable[[], float] = time.monotonic):
        self._clock = clock
        self._pages: OrderedDict[str, tuple[float, Page]] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, url: str) -> Page | None:
        """The page kept for `url`, unless it is older than 15 minutes."""
        with self._lock:
            found = self._pages.get(url)
            if found is None:
                return None
            if self._clock() - found[0] > TTL_S:
                del self._pages[url]
                return None
            self._pages.move_to_end(url)
            return found[1]

    def put(self, url: str, page: Page) -> None:
        """Keep `page` for `url` when it came back whole (no error, no redirect, no error status)."""
        if page.error or page.location or page.status >= 400 or len(page.body) > MAX_BYTES:
            return
        with self._lock:
            self._pages[url] = (self._clock(), page)
            self._pages.move_to_end(url)
            while sum(len(kept.body) for _, kept in self._pages.values()) > MAX_BYTES:
                self._pages.popitem(last=False)
