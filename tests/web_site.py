"""A small web site on 127.0.0.1 for the WebFetch tests, speaking plain HTTP and HTTPS on one port.

Claude Code upgrades every http URL to https, so a test site must answer TLS; it looks at the first
byte of each connection (0x16 opens a TLS handshake) and answers either protocol. Its certificate
comes from a test CA made when the site starts; `ca_file` is the CA's PEM file, which a run is given
through NODE_EXTRA_CA_CERTS as a Claude Code user gives theirs. Each path's hits are counted
(`hits`), with the protocol each came over (`protocols`).

Run it alone (`python tests/web_site.py PORT FOLDER`) to point Claude Code itself at the same pages.
"""

from __future__ import annotations

import datetime
import ipaddress
import socket
import ssl
import sys
import threading
import time
from collections import Counter
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

PAGE = """<!DOCTYPE html>
<html><head><title>Harbour Ferries</title><style>body { color: red; }</style>
<script>console.log("not content")</script></head>
<body>
<h1>Ferry timetable</h1>
<p>The <b>first ferry</b> leaves at <strong>06:40</strong> from <a href="/pier.html">Pier 3</a>.</p>
<h2>Fares</h2>
<ul><li>Adult: 4.20</li><li>Child: 2.10</li></ul>
<ol><li>Buy a ticket</li><li>Board</li></ol>
<p>Call <code>ferry --help</code> or read<br>the notes.</p>
<pre>line one
  line two</pre>
<blockquote>Mind the gap.</blockquote>
<table><tr><th>Day</th><th>Boats</th></tr><tr><td>Monday</td><td>12</td></tr></table>
<img src="/boat.png" alt="a boat">
</body></html>
"""
PNG = bytes.fromhex("89504e470d0a1a0a0000000d4948445200000001000000010806000000") + bytes(range(256)) * 8
LONG_LINE = "All work and no play makes a long page. "


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args) -> None:
        pass

    def do_GET(self) -> None:
        site: WebSite = self.server.site  # type: ignore[attr-defined]
        path = self.path.split("?")[0]
        with site.lock:
            site.hits[path] += 1
            site.protocols.append((path, "https" if isinstance(self.connection, ssl.SSLSocket) else "http"))
            site.headers[path] = dict(self.headers)
        route = site.routes().get(path)
        if route is None:
            return self._send(404, "text/html", b"<html><body><h1>Not here</h1></body></html>")
        route(self)

    def _send(self, status: int, content_type: str, body: bytes, extra: dict[str, str] | None = None) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        for name, value in (extra or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(body)


class _DualServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, address, handler, context: ssl.SSLContext):
        super().__init__(address, handler)
        self.context = context

    def get_request(self):
        conn, addr = super().get_request()
        try:
            conn.settimeout(5)
            first = conn.recv(1, socket.MSG_PEEK)
            conn.settimeout(None)
            if first == b"\x16":
                conn = self.context.wrap_socket(conn, server_side=True)
        except (OSError, ssl.SSLError):
            pass  # the handler sees a broken connection and gives up on it
        return conn, addr

    def handle_error(self, request, client_address) -> None:
        if not isinstance(sys.exc_info()[1], (ConnectionError, TimeoutError, ssl.SSLError, OSError)):
            super().handle_error(request, client_address)


def _certificates(folder: Path) -> tuple[Path, Path, Path]:
    """A test CA and a certificate for 127.0.0.1 it signed: (ca.pem, cert.pem, key.pem) in `folder`."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    now = datetime.datetime.now(datetime.timezone.utc)
    ca_key, key = ec.generate_private_key(ec.SECP256R1()), ec.generate_private_key(ec.SECP256R1())
    ca_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "agent tests CA")])
    ca = (x509.CertificateBuilder().subject_name(ca_name).issuer_name(ca_name).public_key(ca_key.public_key())
          .serial_number(x509.random_serial_number()).not_valid_before(now - datetime.timedelta(days=1))
          .not_valid_after(now + datetime.timedelta(days=30))
          .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
          .add_extension(x509.KeyUsage(digital_signature=True, key_cert_sign=True, crl_sign=True, content_commitment=False,
                                       key_encipherment=False, data_encipherment=False, key_agreement=False,
                                       encipher_only=False, decipher_only=False), critical=True)
          .add_extension(x509.SubjectKeyIdentifier.from_public_key(ca_key.public_key()), critical=False)
          .sign(ca_key, hashes.SHA256()))
    leaf = (x509.CertificateBuilder().subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")]))
            .issuer_name(ca_name).public_key(key.public_key()).serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(days=1)).not_valid_after(now + datetime.timedelta(days=30))
            .add_extension(x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]), critical=False)
            .add_extension(x509.ExtendedKeyUsage([x509.oid.ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
            .add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(ca_key.public_key()), critical=False)
            .sign(ca_key, hashes.SHA256()))
    paths = folder / "ca.pem", folder / "cert.pem", folder / "key.pem"
    paths[0].write_bytes(ca.public_bytes(serialization.Encoding.PEM))
    paths[1].write_bytes(leaf.public_bytes(serialization.Encoding.PEM))
    paths[2].write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                           serialization.NoEncryption()))
    return paths


class WebSite:
    """The site: started at once on 127.0.0.1 (`port`, `base` as http://127.0.0.1:PORT), and `other`,
    the port of a second site a cross-origin redirect points at. `close()` stops it."""

    def __init__(self, folder: Path, port: int = 0, long_chars: int = 250_000, huge_bytes: int = 11 * 1024 * 1024,
                 slow_s: float = 5.0):
        folder.mkdir(parents=True, exist_ok=True)
        self.ca_file, cert, key = _certificates(folder)
        context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        context.load_cert_chain(cert, key)
        self.long_chars, self.huge_bytes, self.slow_s = long_chars, huge_bytes, slow_s
        self.lock = threading.Lock()
        self.hits: Counter[str] = Counter()
        self.protocols: list[tuple[str, str]] = []
        self.headers: dict[str, dict[str, str]] = {}
        self._server = _DualServer(("127.0.0.1", port), _Handler, context)
        self._server.site = self  # type: ignore[attr-defined]
        self.port = self._server.server_address[1]
        self.other = port + 1 if port else _free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        threading.Thread(target=self._server.serve_forever, daemon=True).start()

    def routes(self) -> dict:
        long_body = (f"<html><head><title>Long</title></head><body><p>"
                     + (LONG_LINE * (self.long_chars // len(LONG_LINE) + 1))[:self.long_chars] + "</p></body></html>")

        def send(status: int, kind: str, body: bytes | str, **extra: str):
            data = body.encode() if isinstance(body, str) else body
            return lambda handler: handler._send(status, kind, data, {k.replace("_", "-"): v for k, v in extra.items()})

        def slow(handler) -> None:
            time.sleep(self.slow_s)
            handler._send(200, "text/plain", b"finally")

        return {
            "/page.html": send(200, "text/html; charset=utf-8", PAGE),
            "/notes.md": send(200, "text/markdown", "# Notes\n\nKeep *left*.\n"),
            "/data.json": send(200, "application/json", '{"ferries": 3}'),
            "/moved": send(301, "text/html", "", Location="/page.html"),
            "/away": send(302, "text/html", "", Location=f"http://127.0.0.1:{self.other}/page.html"),
            "/missing": send(404, "text/html", "<h1>Not Found</h1>"),
            "/broken": send(500, "text/html", "<h1>Oops</h1>"),
            "/boat.png": send(200, "image/png", PNG),
            "/blob": send(200, "application/octet-stream", bytes(range(256))),
            "/long.html": send(200, "text/html", long_body),
            "/huge": send(200, "text/plain", b"x" * self.huge_bytes),
            "/slow": slow,
        }

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


if __name__ == "__main__":
    site = WebSite(Path(sys.argv[2]), int(sys.argv[1]))
    print(site.ca_file, flush=True)
    threading.Event().wait()
