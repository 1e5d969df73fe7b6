"""A loopback HTTP server of the host machine that counts the requests reaching it: what a
sandboxed command may reach only through the agent's network proxy, once allowed."""

from __future__ import annotations

import http.server
import socketserver
import threading


class HostServer:
    """A loopback HTTP server of the host that counts the requests that reach it."""

    def __init__(self, address: str) -> None:
        hits = self.hits = [0]

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                hits[0] += 1
                self.send_response(200)
                self.end_headers()
                self.wfile.write(b"hello from the host\n")

            def log_message(self, *args: object) -> None:
                pass

        self.server = socketserver.ThreadingTCPServer((address, 0), Handler)
        port = self.server.server_address[1]
        self.url, self.name = f"http://{address}:{port}/", f"{address}:{port}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()
