"""Session helpers several folders use: the attested stamp of @turnkey/core 2.7+ and an OTP
verification token bound to a client key (tests/activities/test_sessions_recovery.py,
tests/auth_proxy/test_proxy_v2.py, tests/consensus/test_mfa_enforcement.py)."""

from __future__ import annotations

import base64
import json

from conftest import result_of
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from support import EMAIL, ClientKey, seal_to_target


class AttestedStamper:
    """X-Stamp-Attested as @turnkey/core 2.7+ builds it: base64url JSON, DER signature by the client key."""

    def __init__(self, key: ClientKey, token: str, scheme: str = "STAMP_ATTESTED_SCHEME_P256_VERIFICATION_TOKEN"):
        self.key, self.token, self.scheme = key, token, scheme

    def stamp(self, body: bytes) -> tuple[str, str]:
        fields = {
            "publicKeyAttestation": self.token,
            "scheme": self.scheme,
            "publicKey": self.key.public,
            "signature": self.key.key.sign(body, ec.ECDSA(hashes.SHA256())).hex(),
        }
        return "X-Stamp-Attested", base64.urlsafe_b64encode(json.dumps(fields).encode()).decode().rstrip("=")


def verification_token(client, simulator, key: ClientKey, contact: str = EMAIL) -> str:
    """init_otp V3 then verify_otp V2 with the code sealed (pyhpke) to the target, bound to ``key``."""
    started = result_of(
        client.submit(
            "init_otp", "ACTIVITY_TYPE_INIT_OTP_V3", {"otpType": "OTP_TYPE_EMAIL", "contact": contact, "appName": "D"}
        ),
        "initOtpResultV2",
    )
    plain = json.dumps({"otp_code": simulator.simulator.otp_code(contact), "public_key": key.public}).encode()
    sealed = seal_to_target(started["otpEncryptionTargetBundle"], plain)
    params = {"otpId": started["otpId"], "encryptedOtpBundle": sealed}
    return result_of(client.submit("verify_otp", "ACTIVITY_TYPE_VERIFY_OTP_V2", params), "verifyOtpResult")[
        "verificationToken"
    ]
