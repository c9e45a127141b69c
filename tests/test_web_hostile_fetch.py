"""WebFetch's fetch against a server built to hurt it, on 127.0.0.1 over TLS (its CA given as
NODE_EXTRA_CA_CERTS): bodies past the cap however they are framed or compressed, responses that
drip (the whole fetch has one deadline, not each read), headers too many or too long, redirects
that cannot be parsed, are too long or lead to other schemes, and charsets that are no charsets.
Every one is a Page the model is told about in one line; none raises."""

from __future__ import annotations

import socket
import ssl
import threading
import time
import zlib

import pytest

from agent.tools.web.fetching import MAX_BODY_BYTES, Page, fetch
from agent.tools.web.reading import page_text
from web_site import _certificates

ZERO_MB = bytes(1024 * 1024)


def _gzip_of_zeros(megabytes: int, wbits: int = 31) -> bytes:
    packer = zlib.compressobj(9, zlib.DEFLATED, wbits)
    return b"".join(packer.compress(ZERO_MB) for _ in range(megabytes)) + packer.flush()


def _head(status: str = "200 OK", *lines: str) -> bytes:
    return ("\r\n".join([f"HTTP/1.1 {status}", "Content-Type: text/html", *lines]) + "\r\n\r\n").encode("latin-1")


def _endless(conn, piece: bytes, pause: float = 0.0) -> None:
    while True:
        conn.sendall(piece)
        time.sleep(pause)


ROUTES = {
    "/gzip-bomb": lambda conn: conn.sendall(_head("200 OK", "Content-Encoding: gzip", "Content-Length: %d"
                                                  % len(GZIP)) + GZIP),
    "/deflate-bomb": lambda conn: conn.sendall(_head("200 OK", "Content-Encoding: deflate", "Content-Length: %d"
                                                     % len(DEFLATE)) + DEFLATE),
    "/endless-chunks": lambda conn: (conn.sendall(_head("200 OK", "Transfer-Encoding: chunked")),
                                     _endless(conn, b"10000\r\n" + b"a" * 0x10000 + b"\r\n")),
    "/drip-body": lambda conn: (conn.sendall(_head("200 OK", "Content-Length: 100000")), _endless(conn, b"a", 0.2)),
    "/drip-headers": lambda conn: (conn.sendall(b"HTTP/1.1 200 OK\r\n"), _endless(conn, b"X-A: b\r\n", 0.2)),
    "/many-headers": lambda conn: conn.sendall(_head("200 OK", *(f"X-{n}: y" for n in range(200)))),
    "/long-header": lambda conn: conn.sendall(_head("200 OK", "X-A: " + "y" * 100_000)),
    "/short-body": lambda conn: conn.sendall(_head("200 OK", "Content-Length: 99999") + b"short"),
    "/bad-location": lambda conn: conn.sendall(_head("302 Found", "Location: http://[::1", "Content-Length: 0")),
    "/latin-location": lambda conn: conn.sendall(_head("302 Found", "Location: /caf\u00e9\u00ff", "Content-Length: 0")),
    "/long-location": lambda conn: conn.sendall(_head("302 Found", "Location: /" + "a" * 60_000, "Content-Length: 0")),
    "/file-location": lambda conn: conn.sendall(_head("302 Found", "Location: file:///etc/passwd", "Content-Length: 0")),
    "/loop": lambda conn: conn.sendall(_head("302 Found", "Location: /loop", "Content-Length: 0")),
    "/long-reason": lambda conn: conn.sendall(_head("200 " + "R" * 60_000, "Content-Length: 2") + b"hi"),
    "/no-status": lambda conn: conn.sendall(b"no status line here\n\n"),
}
GZIP, DEFLATE = _gzip_of_zeros(64), _gzip_of_zeros(64, wbits=15)


class HostileSite:
    """Answers each path of ROUTES with the raw bytes it sends, over TLS on 127.0.0.1."""

    def __init__(self, folder):
        folder.mkdir(parents=True, exist_ok=True)
        self.ca_file, cert, key = _certificates(folder)
        self._context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        self._context.load_cert_chain(cert, key)
        self._listener = socket.create_server(("127.0.0.1", 0))
        self.base = f"https://127.0.0.1:{self._listener.getsockname()[1]}"
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self._listener.accept()
            except OSError:
                return
            threading.Thread(target=self._answer, args=(conn,), daemon=True).start()

    def _answer(self, conn) -> None:
        try:
            with self._context.wrap_socket(conn, server_side=True) as tls:
                request = b""
                while b"\r\n\r\n" not in request:
                    piece = tls.recv(4096)
                    if not piece:
                        return
                    request += piece
                ROUTES[request.split(b" ")[1].decode()](tls)
        except (OSError, ssl.SSLError):
            pass  # the client gave up on it, as it should

    def close(self) -> None:
        self._listener.close()


@pytest.fixture(scope="module")
def hostile(tmp_path_factory):
    site = HostileSite(tmp_path_factory.mktemp("hostile"))
    yield site
    site.close()


def _fetch(site: HostileSite, path: str, timeout_ms: int = 3000) -> tuple[Page, float]:
    started = time.monotonic()
    page = fetch(f"{site.base}{path}", {"NODE_EXTRA_CA_CERTS": str(site.ca_file),
                                        "AGENT_WEB_FETCH_TIMEOUT_MS": str(timeout_ms)})
    return page, time.monotonic() - started


@pytest.mark.parametrize("path", ["/gzip-bomb", "/deflate-bomb", "/endless-chunks"])
def test_a_body_past_the_cap_is_refused_however_it_is_framed_or_compressed(hostile, path):
    page, took = _fetch(hostile, path, timeout_ms=20_000)
    assert page.error == f"maxContentLength size of {MAX_BODY_BYTES} exceeded" and page.body == b""
    assert took < 10


@pytest.mark.parametrize("path", ["/drip-body", "/drip-headers"])
def test_a_response_that_drips_ends_at_the_fetchs_deadline(hostile, path):
    page, took = _fetch(hostile, path, timeout_ms=1500)
    assert page.error == "timeout of 1500ms exceeded" and 1.4 < took < 5


@pytest.mark.parametrize("path, error", [
    ("/many-headers", "got more than 100 headers"),
    ("/long-header", "got more than 65536 bytes when reading header line"),
    ("/short-body", "IncompleteRead(5 bytes read, 99994 more expected)"),
    ("/no-status", "BadStatusLine"),
    ("/bad-location", "The server's response could not be read: ValueError: Invalid IPv6 URL"),
    ("/latin-location", "The server's response could not be read: UnicodeDecodeError: invalid continuation byte"),
    ("/long-location", "The server redirected to a URL of 60,024 characters (WebFetch fetches URLs of at most 2,000)"),
    ("/loop", "Too many redirects (more than 10)"),
])
def test_a_response_webfetch_cannot_take_is_one_line_of_error(hostile, path, error):
    page, _ = _fetch(hostile, path)
    assert error in page.error and "\n" not in page.error and len(page.error) <= 500 and page.body == b""


def test_a_redirect_to_another_scheme_is_reported_not_followed(hostile):
    page, _ = _fetch(hostile, "/file-location")
    assert (page.status, page.location, page.body, page.error) == (302, "file:///etc/passwd", b"", "")


def test_a_reason_phrase_of_kilobytes_is_cut(hostile):
    page, _ = _fetch(hostile, "/long-reason")
    assert (page.status, page.reason, page.body) == (200, "R" * 200, b"hi")


@pytest.mark.parametrize("charset", ["idna", "punycode", "undefined", "unicode_escape", "raw_unicode_escape",
                                     "bogus", "base64"])
def test_a_charset_that_is_no_charset_reads_the_body_as_utf8(charset):
    page = Page("https://example.com/", 200, "OK", f"text/plain; charset={charset}", "caf\u00e9 \\x41".encode())
    assert page_text(page) == "caf\u00e9 \\x41"
