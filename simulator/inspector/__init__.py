"""The inspector: a page under ``/_simulator/ui`` that shows what the simulator holds and drives it.

Plain HTML, CSS and JavaScript shipped in ``static/`` (no build step, nothing fetched from
elsewhere: it works offline). The page shell and its assets hold no state and are served to
anyone who can reach the port; everything it shows comes from JSON behind the control API's
token (``views.api`` here, and the control API itself for every action), which the page asks
for once and keeps in the tab's sessionStorage.

``install(app)`` adds it to the main app (``Config.inspector``; only with the control API,
since it reads and drives through it).
"""

from __future__ import annotations

from flask import Blueprint, Flask, Response

from simulator.http import logs
from simulator.inspector import requests_log
from simulator.inspector.views import api

PATH = "/_simulator/ui"
# Only the page's own files: a stray <script src="https://..."> would be refused, so it keeps working offline.
CONTENT_SECURITY_POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
    "object-src 'none'; base-uri 'none'; frame-ancestors 'none'"
)
pages = Blueprint("inspector", __name__, url_prefix=PATH, static_folder="static", static_url_path="/static")


@pages.get("/")
def page() -> Response:
    response = pages.send_static_file("index.html")
    response.headers["Cache-Control"] = "no-cache"
    return response


def protect(response: Response) -> Response:
    """On every inspector answer, the page, its static files (index.html among them, so its copy at
    /_simulator/ui/static/index.html cannot be framed either) and its JSON: the CSP and X-Frame-Options."""
    response.headers["Content-Security-Policy"] = CONTENT_SECURITY_POLICY
    response.headers["X-Frame-Options"] = "DENY"
    response.headers["X-Content-Type-Options"] = "nosniff"
    return response


pages.after_request(protect)
api.after_request(protect)


def install(app: Flask, request_log_size: int = 1000) -> None:
    """Serve the page and its JSON on ``app``, and keep every request it answers from now on, timed."""
    app.extensions[requests_log.EXTENSION] = requests_log.RequestLog(request_log_size)
    app.register_blueprint(pages)
    app.register_blueprint(api)
    logs.add_reader(app, requests_log.answered)


def url(base_url: str) -> str:
    """The page's address on a server whose main address is ``base_url``."""
    return base_url.rstrip("/") + PATH
