"""For tests of code that calls Turnkey: stamps and clients (helpers.py) and scenario replay (replay.py).

``simulator.testing`` was one module: its helpers are still imported from here
(``from simulator.testing import ApiKeyStamper, SimulatorClient``).
"""

from __future__ import annotations

from simulator.paths import names_of
from simulator.testing.helpers import (
    ApiKeyStamper,
    BundleError,
    ClientKeyPair,
    InProcessClient,
    PasskeyStamper,
    Response,
    SimulatorClient,
    decrypt_credential_bundle,
    decrypt_export_bundle,
    encrypt_otp_code_to_bundle,
    encrypt_private_key_to_bundle,
    encrypt_wallet_to_bundle,
    jwt_claims,
    login_client_signature,
    session_client,
    session_stamper,
    stamper_from_credential_bundle,
)

__all__ = [
    "ApiKeyStamper",
    "BundleError",
    "ClientKeyPair",
    "InProcessClient",
    "PasskeyStamper",
    "Response",
    "SimulatorClient",
    "decrypt_credential_bundle",
    "decrypt_export_bundle",
    "encrypt_otp_code_to_bundle",
    "encrypt_private_key_to_bundle",
    "encrypt_wallet_to_bundle",
    "jwt_claims",
    "login_client_signature",
    "session_client",
    "session_stamper",
    "stamper_from_credential_bundle",
]


__getattr__ = names_of(
    __name__, "simulator.testing.helpers"
)  # any other name the one module had (what it imported, say)
