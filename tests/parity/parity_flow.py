"""A suite's flow for the parity tests: the same requests against any upstream, through a recorder, with the
official-looking shapes a team's tests make (a wallet, its accounts, a user, a signature, a refusal)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from simulator.parity.recorder import ParityRecorder
from simulator.testing import ApiKeyStamper, SimulatorClient

ETH = {
    "curve": "CURVE_SECP256K1",
    "pathFormat": "PATH_FORMAT_BIP32",
    "path": "m/44'/60'/0'/0/0",
    "addressFormat": "ADDRESS_FORMAT_ETHEREUM",
}
UNKNOWN_WALLET = "00000000-0000-4000-8000-0000000000ff"


def run_flow(client: SimulatorClient, skip: str = "") -> None:
    """The requests, each answer's ids sent back by later ones (as a team's suite does); ``skip``: an operation
    left out (one side's suite lacking a call)."""
    made = client.submit("create_wallet", "ACTIVITY_TYPE_CREATE_WALLET", {"walletName": "parity", "accounts": [ETH]})
    result = made.body["activity"]["result"]["createWalletResult"]
    wallet, address = result["walletId"], result["addresses"][0]
    client.query("get_activity", activityId=made.body["activity"]["id"])
    client.query("get_wallet", walletId=wallet)
    client.query("list_wallets")
    if skip != "list_wallet_accounts":
        client.query("list_wallet_accounts", walletId=wallet)
    client.submit(
        "create_users",
        "ACTIVITY_TYPE_CREATE_USERS_V3",
        {"users": [{"userName": "Alice", "apiKeys": [], "authenticators": [], "oauthProviders": [], "userTags": []}]},
    )
    client.submit(
        "sign_raw_payload",
        "ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2",
        {
            "signWith": address,
            "payload": "0x" + "ab" * 32,
            "encoding": "PAYLOAD_ENCODING_HEXADECIMAL",
            "hashFunction": "HASH_FUNCTION_NO_OP",
        },
    )
    client.query("get_wallet", walletId=UNKNOWN_WALLET)
    client.query("whoami")


def record_flow(upstream: Any, out: Path, credentials: dict[str, Any], flow: Any = run_flow) -> Path:
    """``flow`` run through a recorder in front of ``upstream`` (a SimulatorServer, or anything with url and
    proxy_url), stamped with ``credentials``; the recording's path."""
    with ParityRecorder(upstream.url, out, proxy_upstream=upstream.proxy_url) as recorder:
        stamper = ApiKeyStamper(credentials["apiPrivateKey"])
        flow(SimulatorClient(recorder.url, stamper, credentials["organizationId"]))
    return out
