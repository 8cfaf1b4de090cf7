"""A stamp whose DER signature keeps a leading zero byte in r (as @turnkey/crypto's toDerSignature
writes about one signature in 128) is checked by its numbers; a wrong signature is still refused."""

from __future__ import annotations

import base64
import json

from conftest import DEFAULTS
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature

from simulator import Config, Simulator, create_app


def to_der_like_turnkey_crypto(r: int, s: int) -> bytes:
    """r and s as 32 bytes each, a zero byte added only before a high bit: toDerSignature's encoding."""

    def integer(value: int) -> bytes:
        raw = value.to_bytes(32, "big")
        raw = b"\x00" + raw if raw[0] & 0x80 else raw
        return bytes([0x02, len(raw)]) + raw

    body = integer(r) + integer(s)
    return bytes([0x30, len(body)]) + body


def stamp_header(signature: bytes) -> str:
    fields = {
        "publicKey": DEFAULTS["apiPublicKey"],
        "scheme": "SIGNATURE_SCHEME_TK_API_P256",
        "signature": signature.hex(),
    }
    return base64.urlsafe_b64encode(json.dumps(fields).encode()).decode().rstrip("=")


def test_an_r_with_a_leading_zero_byte_in_non_minimal_der_is_accepted_and_a_wrong_one_refused() -> None:
    key = ec.derive_private_key(int(DEFAULTS["apiPrivateKey"], 16), ec.SECP256R1())
    for attempt in range(5000):  # an r below 2**248 comes about once in 256 signatures
        raw = (json.dumps({"organizationId": DEFAULTS["organizationId"]}) + " " * attempt).encode()
        r, s = decode_dss_signature(key.sign(raw, ec.ECDSA(hashes.SHA256())))
        if r < 2**248:
            break
    else:
        raise AssertionError("no signature with a leading zero byte in r in 5000 tries")
    client = create_app(Simulator(Config(seed=1))).test_client()
    loose = to_der_like_turnkey_crypto(r, s)
    assert loose[3] == 33 or loose[4] == 0  # r kept its leading zero: not minimal DER
    answer = client.post("/public/v1/query/whoami", data=raw, headers={"X-Stamp": stamp_header(loose)})
    assert answer.status_code == 200, answer.data
    assert answer.get_json()["userId"] == DEFAULTS["userId"]
    wrong = to_der_like_turnkey_crypto(r, s ^ 1)
    refused = client.post("/public/v1/query/whoami", data=raw, headers={"X-Stamp": stamp_header(wrong)})
    assert refused.status_code == 401 and refused.get_json()["turnkeyErrorCode"] == "SIGNATURE_INVALID"
