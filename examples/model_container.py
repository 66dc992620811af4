#!/usr/bin/env python3
"""A minimal inference container following the SageMaker hosting contract, for trying out
SAGEMAKER_EMULATOR_UPSTREAM without Docker: GET /ping answers 200, POST /invocations answers a
JSON document with the number of CSV values received and their sum.

    examples/model_container.py 8080      # then use http://127.0.0.1:8080 as the upstream

A real model image works the same way: run it with `docker run -p 8080:8080 IMAGE serve`.
"""
import json
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class Handler(BaseHTTPRequestHandler):
    def do_GET(self):
        if self.path == "/ping":
            self._answer(200, "text/plain", b"")
        else:
            self._answer(404, "text/plain", b"not found")

    def do_POST(self):
        if self.path != "/invocations":
            return self._answer(404, "text/plain", b"not found")
        body = self.rfile.read(int(self.headers.get("Content-Length", 0))).decode()
        try:
            values = [float(v) for v in body.replace("\n", ",").split(",") if v.strip()]
        except ValueError:
            return self._answer(400, "text/plain", b"expected CSV numbers")
        answer = {"count": len(values), "sum": sum(values)}
        self._answer(200, "application/json", json.dumps(answer).encode())

    def _answer(self, status, content_type, payload):
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)


if __name__ == "__main__":
    port = int(sys.argv[1]) if len(sys.argv) > 1 else 8080
    ThreadingHTTPServer(("127.0.0.1", port), Handler).serve_forever()
