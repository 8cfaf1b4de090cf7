"""What the benchmark sends: a scenario with many organizations, and freshly stamped bodies.

Every request carries its own P-256 stamp (a new ECDSA signature, as real clients send) and
every activity body is unique (names, payloads and timestamps), so that no answer can come
from the simulator's idempotency cache.
"""

from __future__ import annotations

import json
import tempfile
import time
from pathlib import Path
from typing import Any

from load import Request

from simulator.testing import ApiKeyStamper

KEY = "b0" * 32
ORGS = 100  # an organization holds at most 100 wallets: bench-0..58 for the Python client, bench-60.. for node
ETH = {
    "curve": "CURVE_SECP256K1",
    "pathFormat": "PATH_FORMAT_BIP32",
    "path": "m/44'/60'/0'/0/0",
    "addressFormat": "ADDRESS_FORMAT_ETHEREUM",
}
OPERATIONS = ("create_wallet", "sign_raw_payload", "sign_transaction", "get_activity", "whoami")
HEADERS = {"Content-Type": "application/json"}
Json = dict[str, Any]


def scenario_file() -> Path:
    lines = ["organizations:"]
    for i in range(ORGS):
        lines += [f"  - id: bench-{i}", "    users:", f'      - apiKeys: [{{privateKey: "{KEY}"}}]']
    path = Path(tempfile.mkdtemp()) / "bench.yaml"
    path.write_text("\n".join(lines) + "\n")
    return path


class Workload:
    """Builds the requests of each operation; ``signer`` (an address) and ``activity`` come from setup."""

    def __init__(self) -> None:
        self.stamper = ApiKeyStamper(KEY)
        self.wallets = 0
        self.serial = 0
        self.signer = ""
        self.activity = ""

    def stamped(self, path: str, body: Json) -> Request:
        raw = json.dumps(body).encode()
        name, value = self.stamper.stamp(raw)
        return Request("POST", path, raw, {**HEADERS, name: value})

    def activity_body(self, kind: str, org: str, parameters: Json) -> Json:
        self.serial += 1
        stamp = str(int(time.time() * 1000) + self.serial % 1000)
        return {"type": kind, "timestampMs": stamp, "organizationId": org, "parameters": parameters}

    def create_wallet(self) -> Request:
        org = f"bench-{self.wallets // 100}"
        self.wallets += 1
        body = self.activity_body(
            "ACTIVITY_TYPE_CREATE_WALLET", org, {"walletName": f"w{self.wallets}", "accounts": [ETH]}
        )
        return self.stamped("/public/v1/submit/create_wallet", body)

    def sign_raw_payload(self) -> Request:
        self.serial += 1
        parameters = {
            "signWith": self.signer,
            "payload": self.serial.to_bytes(32, "big").hex(),
            "encoding": "PAYLOAD_ENCODING_HEXADECIMAL",
            "hashFunction": "HASH_FUNCTION_NO_OP",
        }
        body = self.activity_body("ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2", "bench-59", parameters)
        return self.stamped("/public/v1/submit/sign_raw_payload", body)

    def sign_transaction(self) -> Request:
        self.serial += 1
        parameters = {
            "signWith": self.signer,
            "unsignedTransaction": eip1559_unsigned(nonce=self.serial),
            "type": "TRANSACTION_TYPE_ETHEREUM",
        }
        body = self.activity_body("ACTIVITY_TYPE_SIGN_TRANSACTION_V2", "bench-59", parameters)
        return self.stamped("/public/v1/submit/sign_transaction", body)

    def get_activity(self) -> Request:
        return self.stamped(
            "/public/v1/query/get_activity", {"organizationId": "bench-59", "activityId": self.activity}
        )

    def whoami(self) -> Request:
        return self.stamped("/public/v1/query/whoami", {"organizationId": "bench-59"})

    def batch(self, operation: str, count: int) -> list[Request]:
        build = getattr(self, operation)
        return [build() for _ in range(count)]

    def setup_requests(self) -> Request:
        """The wallet that signs (in bench-59, which create_wallet rounds do not fill)."""
        body = self.activity_body(
            "ACTIVITY_TYPE_CREATE_WALLET", "bench-59", {"walletName": "signer", "accounts": [ETH]}
        )
        return self.stamped("/public/v1/submit/create_wallet", body)

    def learn(self, answer: Json) -> None:
        activity = answer["activity"]
        self.activity = activity["id"]
        self.signer = activity["result"]["createWalletResult"]["addresses"][0]


def rlp(item: bytes | int | list[Any]) -> bytes:
    """Recursive-length-prefix encoding (Ethereum's), enough for one unsigned transaction."""
    if isinstance(item, list):
        payload = b"".join(rlp(x) for x in item)
        return length_prefix(len(payload), 0xC0) + payload
    data = item if isinstance(item, bytes) else (item.to_bytes((item.bit_length() + 7) // 8, "big") if item else b"")
    if len(data) == 1 and data[0] < 0x80:
        return data
    return length_prefix(len(data), 0x80) + data


def length_prefix(length: int, offset: int) -> bytes:
    if length < 56:
        return bytes([offset + length])
    size = length.to_bytes((length.bit_length() + 7) // 8, "big")
    return bytes([offset + 55 + len(size)]) + size


def eip1559_unsigned(nonce: int) -> str:
    """An unsigned EIP-1559 transfer of 1 wei on chain 1 (type byte 0x02, then the RLP list)."""
    to = bytes.fromhex("d8da6bf26964af9d7eed9e03e53415d37aa96045")
    fields: list[Any] = [1, nonce, 10**9, 2 * 10**9, 21000, to, 1, b"", []]
    return "02" + rlp(fields).hex()
