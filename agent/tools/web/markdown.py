"""HTML turned into Markdown as Claude Code's WebFetch shows a page to its reader: the title first,
<script>, <style> and other non-content elements dropped, `<h1>` and `<h2>` underlined with `===`
and `---` (deeper headings with #), bold as **…**, emphasis as _…_, code as `…`, list items as
`*   item` and `1.  item`, links and images as Markdown links, quotes as `> `, <br> as a hard
break, <pre> kept as written and table rows as `| a | b |`.

Scripts, styles and comments are cut out by RE2 before parsing, and so are the constructs a page
never shows (doctypes, CDATA, processing instructions: `<!…>` and `<?…>`, up to their `>`); a `<`
no `>` follows is text. html.parser would take time quadratic in the page over those left open
(`<?` a million times) and raise on a malformed `<![…`. At most 2,000,000 characters of the rest
are converted (a last line says so). Written on the standard library's html.parser (tolerant of broken HTML, never fetching anything):
a new dependency would convert more exotic markup, but pages come from anywhere and the reader
only needs their text and structure. The work is linear in the page: the parser is fed once,
output is built in lists, and nesting is bounded (deeper elements are read as plain text).
"""

from __future__ import annotations

import re
from html.parser import HTMLParser

_DROPPED = {"script", "style", "noscript", "template", "svg", "iframe", "object", "head-meta"}
_BLOCKS = {"p", "div", "section", "article", "main", "header", "footer", "nav", "aside", "form", "table",
           "figure", "figcaption", "details", "summary", "dl", "dt", "dd", "address", "fieldset", "hr", "body"}
_HEADINGS = {"h1": 1, "h2": 2, "h3": 3, "h4": 4, "h5": 5, "h6": 6}
# the same marker opens and closes each inline style
_INLINE = {"b": "**", "strong": "**", "i": "_", "em": "_", "code": "`"}
_VOID = {"br", "img", "hr", "meta", "link", "input", "area", "base", "col", "embed", "source", "track", "wbr"}
MAX_DEPTH = 512  # open elements tracked; a page nested deeper is still read, as text
MAX_QUOTE_DEPTH = 8  # `> ` markers a line gets at most, however deep its quotes nest (bounds the output)
MAX_HTML_CHARS = 2_000_000  # converted of one page's HTML (scripts and styles aside): a few seconds at most
_DROPPED_PATTERNS = [r"(?s)<!--.*?-->", *(rf"(?is)<{tag}\b[^>]*>.*?</{tag}\s*>"
                                         for tag in ("script", "style", "noscript", "template", "svg"))]
_BOGUS_COMMENT = r"<[!?][^>]*>"  # what a browser reads as a comment (html.parser: declarations, PIs)
_SPACES = re.compile(r"[ \t\r\n\f]+")


class _Converter(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.out: list[tuple[str, str]] = []  # finished blocks, each with its kind ("li" and "tr" sit tight)
        self.line: list[str] = []  # the block being written
        self.title: list[str] = []
        self.stack: list[str] = []
        self.lists: list[list[int]] = []  # [kind (0 bullet, 1 numbered), next number]
        self.quote = 0
        self.list_number = 0  # counts outermost lists: items of one sit tight, two lists apart
        self.dropped = 0  # inside <script>, <style>, ...
        self.in_title = False
        self.pre = 0
        self.href: list[str | None] = []
        self.row: list[list[str]] | None = None  # the cells of the table row being read, each in pieces

    # -- structure
    def handle_starttag(self, tag: str, attrs) -> None:
        values = {name: value or "" for name, value in attrs}
        if tag not in _VOID:
            if len(self.stack) >= MAX_DEPTH:
                return
            self.stack.append(tag)
        if self.dropped or tag in _DROPPED:
            self.dropped += tag in _DROPPED and tag not in _VOID
            return
        if tag == "title":
            self.in_title = True
        elif tag in _HEADINGS or tag in _BLOCKS or tag == "blockquote":
            self._end_block()
            self.quote += tag == "blockquote"
            if tag == "hr":
                self.out.append((self._prefix() + "* * *", ""))
        elif tag in ("ul", "ol"):
            self._end_block()
            self.list_number += not self.lists
            self.lists.append([int(tag == "ol"), 1])
        elif tag == "li":
            self._end_block()
            if self.lists and self.lists[-1][0]:
                marker = f"{self.lists[-1][1]}.  "
                self.lists[-1][1] += 1
            else:
                marker = "*   "
            self.line.append("    " * max(len(self.lists) - 1, 0) + marker)
        elif tag == "pre":
            self._end_block()
            self.pre += 1
        elif tag == "br":
            self._write("  \n" if self.row is None else " ")  # a table row stays on one line
        elif self._inline_marker(tag):
            pass
        elif tag == "a":
            self.href.append(values.get("href") or None)
            if self.href[-1]:
                self._write("[")
        elif tag == "img":
            src = values.get("src", "")
            if src:
                self._write(f"![{_flat(values.get('alt', ''))}]({src})")
        elif tag == "tr":
            self._end_block()
            self.row = []
        elif tag in ("td", "th") and self.row is not None:
            self.row.append([])

    def handle_endtag(self, tag: str) -> None:
        if tag in _VOID:
            return
        if tag not in self.stack:
            return  # a stray end tag
        while self.stack:
            opened = self.stack.pop()
            self._close(opened)
            if opened == tag:
                break

    def _close(self, tag: str) -> None:
        if self.dropped:
            self.dropped -= tag in _DROPPED
            return
        if tag == "title":
            self.in_title = False
        elif tag in _HEADINGS:
            text = self._take().strip()
            if text:
                level = _HEADINGS[tag]
                under = {1: "=", 2: "-"}.get(level)
                self.out.append((f"{text}\n{under * len(text)}" if under else "#" * level + " " + text, ""))
        elif tag == "li":
            self._end_block(f"li{self.list_number}")
        elif tag in _BLOCKS:
            self._end_block()
        elif tag == "blockquote":
            self._end_block()
            self.quote = max(self.quote - 1, 0)
        elif tag in ("ul", "ol"):
            self._end_block()
            if self.lists:
                self.lists.pop()
        elif tag == "pre":
            self._end_block(keep=True)
            self.pre = max(self.pre - 1, 0)
        elif self._inline_marker(tag):
            pass
        elif tag == "a" and self.href:
            href = self.href.pop()
            if href:
                self._write(f"]({href})")
        elif tag == "tr" and self.row is not None:
            cells = ["".join(cell).strip() for cell in self.row]
            self.row = None
            if cells:
                self.out.append((self._prefix() + "| " + " | ".join(cells) + " |", "tr"))

    def handle_data(self, data: str) -> None:
        if self.dropped:
            return
        if self.in_title:
            self.title.append(data)
            return
        self._write(data if self.pre else _SPACES.sub(" ", data))

    def _write(self, piece: str) -> None:
        """Add inline text or markup to the table cell being read, or else to the block (inside a
        row but outside its cells, it is dropped)."""
        if self.row is None:
            self.line.append(piece)
        elif self.row:
            self.row[-1].append(piece)

    # -- output
    def _prefix(self) -> str:
        return "> " * min(self.quote, MAX_QUOTE_DEPTH)

    def _take(self) -> str:
        text = "".join(self.line)
        self.line = []
        return text

    def _inline_marker(self, tag: str) -> bool:
        """Write the marker of an inline style `tag` opens or closes (code only outside <pre>, which
        keeps its text as it is); whether `tag` was one."""
        marker = _INLINE.get(tag)
        if marker is None or (tag == "code" and self.pre):
            return False
        self._write(marker)
        return True

    def _end_block(self, kind: str = "", keep: bool = False) -> None:
        text = self._take()
        if not keep:
            text = "\n".join(part.strip(" ") if not part.endswith("  ") else part.lstrip(" ")
                             for part in text.split("\n")).strip()
        elif text.strip("\n"):
            text = text.strip("\n")
        if text.strip():
            prefix = self._prefix()
            self.out.append(("\n".join(prefix + part for part in text.split("\n")) if prefix else text,
                             kind or (f"li{self.list_number}" if self.lists else "")))  # a list's items and what they hold sit tight

    def result(self) -> str:
        self._end_block()
        title = _flat("".join(self.title))
        parts: list[str] = [title] if title else []
        previous = ""
        for text, kind in self.out:
            if parts:
                parts.append("\n" if kind and kind == previous else "\n\n")
            parts.append(text)
            previous = kind
        return "".join(parts)


def _flat(text: str) -> str:
    return _SPACES.sub(" ", text).strip()


def html_to_markdown(html: str) -> str:
    """The Markdown of a page's HTML (see the module docstring). Scripts, styles and comments are cut
    out first (pages are often mostly those); of what is left, the first MAX_HTML_CHARS are
    converted, with a last line saying so when there was more (html.parser reads ~300 KB a second)."""
    html = _without_dropped(html)
    cut = len(html) > MAX_HTML_CHARS
    converter = _Converter()
    converter.feed(html[:MAX_HTML_CHARS] if cut else html)
    converter.close()
    text = converter.result()
    return text + (f"\n\n[WebFetch converted only the first {MAX_HTML_CHARS:,} characters of this page's HTML "
                   f"({len(html):,} without its scripts and styles).]" if cut else "")


def _without_dropped(html: str) -> str:
    """`html` without its script, style, noscript, template and svg elements, its comments and
    bogus comments, cut by RE2 (linear in the page, whatever a hostile page holds), and with each
    `<` that no `>` follows escaped."""
    import re2

    for pattern in (*_DROPPED_PATTERNS, _BOGUS_COMMENT):
        html = re2.sub(pattern, "", html)
    last = html.rfind(">")  # every `<` after it opens something never closed: text, as a browser shows it
    return html[:last + 1] + html[last + 1:].replace("<", "&lt;")
