"""The ceiling: a server that does only what no simulator can skip, on the same transport as the simulator.

Mounted at /ceiling/ by bench/server.py. Per request it checks the X-Stamp's P-256 signature over the
body (the simulator's own code, simulator/auth/stamps.py), makes one BIP-39 seed (PBKDF2-HMAC-SHA512,
2,048 rounds) when the body creates a wallet, and answers the body back as the echo does. The simulator's
requests per second over this app's, on the same requests, is the distance left: 1.0 would mean the
simulator's own work (parsing, schemas, state, policies, the answer) cost nothing.
The seed is made inline, in the request: the simulator makes its wallets' seeds ahead on a thread of
their own while it can keep up, so at one connection create_wallet can exceed this ceiling (above 1.0).
"""

from __future__ import annotations

from flask import Flask, Response, request

from simulator.auth import stamps
from simulator.crypto import hd

MNEMONIC = "abandon " * 11 + "about"
WALLET_TYPES = (b"ACTIVITY_TYPE_CREATE_WALLET", b"ACTIVITY_TYPE_CREATE_SUB_ORGANIZATION")


def ceiling_app() -> Flask:
    ceiling = Flask("ceiling")

    @ceiling.post("/")
    def answer() -> Response:
        body = request.get_data()
        stamps.verify_api_key_stamp(stamps.read_stamp(request.headers), body)
        if any(kind in body for kind in WALLET_TYPES):
            hd.mnemonic_to_seed(MNEMONIC)
        return Response(body, mimetype="application/json")

    return ceiling
