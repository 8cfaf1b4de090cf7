"""Export, import and auth frames: local stand-ins for Turnkey's hosted iframe pages.

``@turnkey/iframe-stamper`` (and through it ``@turnkey/sdk-browser`` and ``@turnkey/react-wallet-kit``)
loads three Turnkey-hosted pages into an iframe and talks to them over a ``MessageChannel``: the
export page decrypts an export bundle with a key that never leaves the frame and shows the
mnemonic or private key; the import page encrypts what the user types to an import bundle's target
key; the auth page holds an embedded key, decrypts a credential bundle and stamps requests. The
real pages trust only the production signer enclave, so a local app cannot use them with the
simulator. These pages speak the same protocol (message types, payloads, error texts) and trust
the simulator's ``signer`` key instead (``simulator.crypto.service_keys``).

Plain HTML and hand-written JavaScript in ``static/`` (WebCrypto for P-256, HKDF, AES-GCM: the
HPKE base mode Turnkey uses), no build step and nothing fetched from elsewhere: they work
offline. The pages call nothing themselves; everything arrives from the parent page.

``install(app)`` serves them on the main interface, whatever ``--no-control`` says: an app needs
them as much as the API. ``urls(base_url)`` gives the addresses the ready line prints.
"""

from __future__ import annotations

from functools import cache
from importlib import resources

from flask import Blueprint, Flask, Response

from simulator.crypto import service_keys

PATH = "/frames"
PAGES = ("export", "import", "auth")
# Their own files only (offline); no network at all: the real frames fetch nothing either.
# No frame-ancestors: being embedded by any app is the point.
CONTENT_SECURITY_POLICY = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'none'; base-uri 'none'; form-action 'none'"
)
SIGNER_PLACEHOLDER = "__SIGNER_PUBLIC_KEY__"

frames = Blueprint("frames", __name__, url_prefix=PATH, static_folder="static", static_url_path="/static")


@cache
def page_html(name: str) -> str:
    """The page, with the key its bundles must be signed by written in (the real pages build one
    page per environment the same way)."""
    text = resources.files(__package__).joinpath(f"static/{name}.html").read_text(encoding="utf-8")
    return text.replace(SIGNER_PLACEHOLDER, service_keys.public_hex("signer"))


def serve_page(name: str) -> Response:
    response = Response(page_html(name), mimetype="text/html")
    response.headers["Content-Security-Policy"] = CONTENT_SECURITY_POLICY
    response.headers["Cache-Control"] = "no-cache"
    response.headers["X-Content-Type-Options"] = "nosniff"
    return response


@frames.get("/export")
def export_page() -> Response:
    return serve_page("export")


@frames.get("/import")
def import_page() -> Response:
    return serve_page("import")


@frames.get("/auth")
def auth_page() -> Response:
    return serve_page("auth")


def install(app: Flask) -> None:
    app.register_blueprint(frames)


def urls(base_url: str) -> dict[str, str]:
    """``exportIframeUrl``, ``importIframeUrl`` and ``authIframeUrl`` on a server whose main address is ``base_url``."""
    base = base_url.rstrip("/") + PATH
    return {f"{name}IframeUrl": f"{base}/{name}" for name in PAGES}
