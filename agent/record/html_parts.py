"""The pieces every HTML report is made of: escaping, shortened texts, bounded JSON, the page.

A cassette is untrusted, so every text that reaches the page goes through `esc` (`<`, `>`, `&`
escaped) or, in an attribute value, `attr` (quotes too), and the page's script takes no data from
the cassette. Long texts are shown shortened, the whole of them one click away (`<details>`), and
the page is one file with its style and script inline: no network, no CDN.
"""

from __future__ import annotations

import base64
import hashlib
import html
import json
from typing import Any

SHORT_LINES, SHORT_CHARS = 8, 600  # a text longer than this is shown shortened, the rest on expand
JSON_CHARS = 20_000  # a JSON value shown in a report is cut after this many characters
STRING_CHARS = 2_000  # and each string in it after this many

STYLE = """
:root{--fg:#1f2328;--muted:#656d76;--line:#d0d7de;--bg:#fff;--soft:#f6f8fa;--main:#0969da;--sub:#8250df;
--ok:#1a7f37;--bad:#cf222e;--warn:#9a6700;--mark:#ffebe9;--markline:#ff8182}
*{box-sizing:border-box}
body{font:14px/1.45 -apple-system,"Segoe UI",Helvetica,Arial,sans-serif;color:var(--fg);background:var(--bg);margin:0;padding:16px 24px 48px}
h1{font-size:20px;margin:0 0 4px} h2{font-size:16px;margin:18px 0 6px}
header{border-bottom:1px solid var(--line);padding-bottom:10px;margin-bottom:12px}
.tools button{font:inherit;font-size:12px;margin-right:6px;padding:2px 8px;border:1px solid var(--line);background:var(--soft);border-radius:6px;cursor:pointer}
.meta,.muted{color:var(--muted)} .meta span+span:before{content:" · "}
pre{white-space:pre-wrap;word-break:break-word;margin:0;font:12.5px/1.4 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}
pre.text{font:14px/1.45 -apple-system,"Segoe UI",Helvetica,Arial,sans-serif}
code{font:12.5px ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}
summary{cursor:pointer} summary::marker{color:var(--muted)}
.label{display:inline-block;min-width:64px;font-weight:600;color:var(--muted);font-size:12px;text-transform:uppercase}
.bubble{border:1px solid var(--line);border-radius:8px;padding:8px 10px;margin:8px 0;background:var(--soft)}
.bubble.prompt{border-left:4px solid var(--main)} .bubble.answer{border-left:4px solid var(--ok);background:#f0fff4}
.conv{margin:4px 0}
.req{border:1px solid var(--line);border-radius:6px;margin:6px 0;background:var(--bg)}
.req>summary{padding:5px 8px;background:var(--soft);border-radius:6px}
.req[open]>summary{border-bottom:1px solid var(--line);border-radius:6px 6px 0 0}
.req>.body{padding:6px 10px}
.who{font-weight:600;color:var(--main)} .sub .who{color:var(--sub)}
.gist{color:var(--muted)}
.text{margin:4px 0 6px}
.call{margin:4px 0 4px 4px;border-left:3px solid var(--line);padding-left:8px}
.call>details>summary code{color:var(--fg)} .call .tool{font-weight:600}
.call.error{border-left-color:var(--bad)} .call.error .result{color:var(--bad)}
.args,.result{margin:3px 0 3px 14px}
.sub{border:1px solid #d8b9ff;border-left:4px solid var(--sub);border-radius:6px;margin:6px 0 6px 14px;background:#fbf8ff}
.sub>summary{padding:4px 8px} .sub>.conv{padding:0 8px 4px}
.request-body{margin:4px 0} .request-body>summary{color:var(--muted);font-size:12px}
.error-line{color:var(--bad);font-weight:600}
details.long>summary{list-style:none} details.long>summary::-webkit-details-marker{display:none}
details.long>summary .more{color:var(--main);font-size:12px} details.long[open]>summary{display:none}
.status-ok .status{color:var(--ok)} .status-drift .status,.status-fail .status,.status-error .status,.status-needs-re-record .status{color:var(--bad)}
.status-updated .status{color:var(--warn)}
.cassette{border-top:1px solid var(--line);padding:6px 0}
.cassette .line{font:12.5px ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}
.paths{margin:6px 0;border-collapse:collapse} .paths td{border:1px solid var(--line);padding:2px 6px;vertical-align:top}
.sides{display:grid;grid-template-columns:1fr 1fr;gap:10px;margin-top:8px}
.side{border:1px solid var(--line);border-radius:6px;padding:6px 8px;overflow:auto;min-width:0}
.side h3{font-size:13px;margin:0 0 4px}
.j{padding-left:14px;font:12.5px/1.4 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;white-space:pre-wrap;word-break:break-word}
.j.diff{background:var(--mark);outline:1px solid var(--markline);border-radius:3px}
mark.change{background:#ffcecb;color:inherit}
.elided{color:var(--muted);font-style:italic}
.hook{margin:3px 0 3px 4px;padding:2px 8px;border-left:3px solid var(--warn);font-size:13px}
.hook .label{min-width:40px} .hook-run{margin-left:14px;color:var(--muted)}
"""

# Expand or collapse every <details>; the `data-script` attribute tells a test the script ran.
SCRIPT = """
(function(){
  var root=document.documentElement; root.setAttribute('data-script','ran');
  function all(open){var d=document.querySelectorAll('details');for(var i=0;i<d.length;i++){d[i].open=open;}}
  var e=document.getElementById('expand-all'), c=document.getElementById('collapse-all');
  if(e){e.addEventListener('click',function(){all(true);});}
  if(c){c.addEventListener('click',function(){all(false);});}
})();
"""


# the page allows only this script to run: were a cassette's text ever to slip through unescaped,
# a script in it would still be refused
_SCRIPT_HASH = "sha256-" + base64.b64encode(hashlib.sha256(SCRIPT.encode("utf-8")).digest()).decode("ascii")


def esc(value: Any) -> str:
    """`value` as text safe in an element's content (not in an attribute: see `attr`)."""
    return html.escape(value if isinstance(value, str) else str(value), quote=False)


def attr(value: Any) -> str:
    """`value` as text safe in a quoted attribute value."""
    return html.escape(value if isinstance(value, str) else str(value), quote=True)


def page(title: str, body: str) -> str:
    """A whole self-contained HTML document."""
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
            f"<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; script-src '{_SCRIPT_HASH}'\">"
            f"<title>{esc(title)}</title><style>{STYLE}</style></head>\n<body>\n"
            "<div class=\"tools\"><button id=\"expand-all\" type=\"button\">expand all</button>"
            "<button id=\"collapse-all\" type=\"button\">collapse all</button></div>\n"
            f"{body}\n<script>{SCRIPT}</script>\n</body></html>\n")


def text_block(text: str, css: str = "text") -> str:
    """A text in a `<pre>`; a long one shortened to its first lines, the whole on expand."""
    lines = text.split("\n")
    if len(lines) <= SHORT_LINES and len(text) <= SHORT_CHARS:
        return f'<pre class="{css}">{esc(text)}</pre>'
    head = "\n".join(lines[:SHORT_LINES])[:SHORT_CHARS]
    more = f"{len(lines) - SHORT_LINES:,} more lines" if len(lines) > SHORT_LINES else f"{len(text) - len(head):,} more characters"
    return (f'<details class="long {css}"><summary><pre>{esc(head)}</pre><span class="more">… {more}: show all</span></summary>'
            f'<pre>{esc(text)}</pre></details>')


def first_line(text: str, width: int = 100) -> str:
    """The first non-empty line of `text`, cut at `width` characters."""
    line = next((line.strip() for line in text.split("\n") if line.strip()), "")
    return line if len(line) <= width else line[:width] + "…"


def bounded_json(value: Any, chars: int = JSON_CHARS, string_chars: int = STRING_CHARS) -> str:
    """`value` as indented JSON with each long string cut, and the whole cut after `chars`."""
    text = json.dumps(_cut_strings(value, string_chars), ensure_ascii=False, indent=2)
    return text if len(text) <= chars else text[:chars] + f"\n… ({len(text) - chars:,} more characters)"


def _cut_strings(value: Any, limit: int) -> Any:
    if isinstance(value, str):
        return value if len(value) <= limit else value[:limit] + f"… ({len(value) - limit:,} more characters)"
    if isinstance(value, list):
        return [_cut_strings(item, limit) for item in value]
    if isinstance(value, dict):
        return {key: _cut_strings(item, limit) for key, item in value.items()}
    return value
