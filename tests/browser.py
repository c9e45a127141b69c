"""A real browser for the tests: headless Chromium (Debian's `chromium`) loads a page from disk and
gives back the DOM it rendered (`--dump-dom`, after the page's script ran) or a screenshot, and a
small DOM tree to look things up in what it rendered.

The flags keep Chromium off the network (no background requests, no component updates, no sync),
which this machine's closed network would refuse anyway, and give each run a fresh profile.
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path

import pytest

CHROMIUM = shutil.which("chromium")
needs_chromium = pytest.mark.skipif(
    CHROMIUM is None, reason="needs Debian's chromium (apt-get install -y chromium; .ci/run installs it)")
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"]
VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}


def chromium(page: Path, *flags: str, timeout: float = 120) -> str:
    """Run headless Chromium on the file `page` with `flags`; its stdout."""
    with tempfile.TemporaryDirectory(prefix="chromium-profile-") as profile:
        done = subprocess.run([CHROMIUM, *FLAGS, f"--user-data-dir={profile}", *flags, page.resolve().as_uri()],
                              capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


def rendered(page: Path) -> "Node":
    """The DOM Chromium rendered from `page`, as a tree."""
    return parse(chromium(page, "--dump-dom"))


def screenshot(page: Path, out: Path, width: int = 1280, height: int = 900) -> None:
    """A screenshot of `page` as Chromium shows it in a `width` x `height` window, saved to `out`."""
    chromium(page, f"--screenshot={out.resolve()}", f"--window-size={width},{height}")
    assert out.exists() and out.stat().st_size > 0


@dataclass
class Node:
    """An element: its tag, attributes, children (elements and text) and parent."""

    tag: str
    attrs: dict[str, str]
    children: list = field(default_factory=list)
    parent: "Node | None" = None

    @property
    def text(self) -> str:
        """All the text inside, as a reader sees it (entities decoded)."""
        return "".join(child if isinstance(child, str) else child.text for child in self.children)

    def classes(self) -> set[str]:
        return set(self.attrs.get("class", "").split())

    def find_all(self, tag: str | None = None, css: str | None = None, **attrs: str) -> list["Node"]:
        """Every element inside (in document order) with `tag`, the class `css` and `attrs`
        (underscores in a name stand for dashes: data_agent is data-agent)."""
        wanted = {name.replace("_", "-"): value for name, value in attrs.items()}
        found = []
        for child in self.children:
            if isinstance(child, Node):
                if ((tag is None or child.tag == tag) and (css is None or css in child.classes())
                        and all(child.attrs.get(name) == value for name, value in wanted.items())):
                    found.append(child)
                found.extend(child.find_all(tag, css, **attrs))
        return found

    def find(self, tag: str | None = None, css: str | None = None, **attrs: str) -> "Node":
        found = self.find_all(tag, css, **attrs)
        assert found, f"no <{tag or '*'}> with class {css} and {attrs}"
        return found[0]

    def ancestors(self) -> list["Node"]:
        found, node = [], self.parent
        while node is not None:
            found.append(node)
            node = node.parent
        return found


class _Builder(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.root = Node("#document", {})
        self.open = [self.root]

    def handle_starttag(self, tag, attrs):
        node = Node(tag, {name: value or "" for name, value in attrs}, parent=self.open[-1])
        self.open[-1].children.append(node)
        if tag not in VOID:
            self.open.append(node)

    def handle_endtag(self, tag):
        for depth in range(len(self.open) - 1, 0, -1):
            if self.open[depth].tag == tag:
                del self.open[depth:]
                return

    def handle_data(self, data):
        self.open[-1].children.append(data)


def parse(text: str) -> Node:
    """The tree of an HTML text (as Chromium serialises a DOM: every element closed)."""
    builder = _Builder()
    builder.feed(text)
    builder.close()
    return builder.root
