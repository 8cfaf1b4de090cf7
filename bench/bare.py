"""A bare Flask app on waitress (the simulator's transport), the start-up baseline of ``serve``.

    python bench/bare.py

Prints a ready line (its URL, as JSON) once the port listens, then answers ``POST /`` with the
body. It imports nothing of the simulator (the package's ``__init__`` would load all of it).
"""

from __future__ import annotations

import json

from flask import Flask, Response, request
from waitress.server import create_server  # type: ignore[import-untyped]


def main() -> None:
    app = Flask("bare")

    @app.post("/")
    def answer() -> Response:
        return Response(request.get_data(), mimetype="application/json")

    server = create_server(app, host="127.0.0.1", port=0, threads=8, ident="bare")
    print(json.dumps({"url": f"http://127.0.0.1:{server.effective_port}"}), flush=True)
    server.run()


if __name__ == "__main__":
    main()
