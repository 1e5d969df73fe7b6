"""A loopback web site for web_fetch's tests: an HTML page, a PDF, a redirect to the same
server under another host name (`localhost` for `127.0.0.1`), a 50 MB body, an image.
Nothing here reaches beyond the loopback interface."""

from __future__ import annotations

import http.server
import socketserver
import threading

PAGE = b"""<!doctype html><html><head><title>Docs</title><style>p {color: red}</style>
<script>alert('no')</script></head><body><h1>Install</h1>
<p>Run <code>pip install thing</code>, then read <a href="https://example.org/guide">the guide</a>.</p>
<ul><li>fast</li><li>small</li></ul></body></html>"""
BIG_BYTES = 50 * 1024 * 1024


def pdf_bytes(text: str) -> bytes:
    """A one-page PDF showing `text` in Helvetica, with a correct cross-reference table."""
    stream = f"BT /F1 12 Tf 72 720 Td ({text}) Tj ET".encode()
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R "
        b"/Resources << /Font << /F1 5 0 R >> >> >>",
        b"<< /Length %d >>\nstream\n%s\nendstream" % (len(stream), stream),
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n%s\nendobj\n" % (number, body)
    table = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (
        len(objects) + 1,
        table,
    )
    return bytes(out)


class WebSite:
    """Serves on 127.0.0.1; `other` is the same server named `localhost` (another host)."""

    def __init__(self) -> None:
        self.paths: list[str] = []
        paths = self.paths
        site_port = [0]

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_GET(self) -> None:
                paths.append(self.path)
                port = site_port[0]
                if self.path == "/docs":
                    self._send(200, "text/html; charset=utf-8", PAGE)
                elif self.path == "/paper.pdf":
                    self._send(200, "application/pdf", pdf_bytes("Hello from a PDF"))
                elif self.path == "/moved":
                    self.send_response(302)
                    self.send_header("Location", f"http://localhost:{port}/docs")
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                elif self.path == "/big":
                    self.send_response(200)
                    self.send_header("Content-Type", "text/plain")
                    self.send_header("Content-Length", str(BIG_BYTES))
                    self.end_headers()
                    line = b"x" * 1023 + b"\n"
                    try:
                        for _ in range(BIG_BYTES // len(line)):
                            self.wfile.write(line)
                    except (BrokenPipeError, ConnectionResetError):
                        pass
                elif self.path == "/logo.png":
                    self._send(200, "image/png", b"\x89PNG\r\n\x1a\n" + b"\0" * 64)
                else:
                    self._send(404, "text/plain", b"no such page")

            def _send(self, status: int, kind: str, body: bytes) -> None:
                self.send_response(status)
                self.send_header("Content-Type", kind)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: object) -> None:
                pass

        class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
            daemon_threads = True

        self.server = Server(("127.0.0.1", 0), Handler)
        self.port = site_port[0] = int(self.server.server_address[1])
        self.url = f"http://127.0.0.1:{self.port}"
        self.host, self.other = f"127.0.0.1:{self.port}", f"localhost:{self.port}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()
