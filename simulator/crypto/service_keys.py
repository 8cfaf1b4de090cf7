"""The simulator's own signing keys, fixed and published so clients can be told to trust them.

The real service signs sessions with its notarizer key and OTP tokens with its enclave keys;
the official clients verify those only when asked, and accept an override key. These stand in
for them. ``signer`` stands in for the signer enclave's quorum key that export and import
bundles carry (@turnkey/crypto's ``dangerouslyOverrideSignerPublicKey``); ``enclave`` for the
TLS-fetcher key of init_otp V3's target bundle. They are throwaway keys derived from fixed
labels, the same in every run.
"""

from __future__ import annotations

from functools import cache

from cryptography.hazmat.primitives.asymmetric import ec

from simulator.crypto import keys

SECRETS = {
    "notarizer": "43bb324c5e61e9038c2a50b116f1b1ff8442dc2cc0c50b9ba01cdf8d17407d3f",
    "verification": "9d57992ef7e5370c0ceed5e8a556aafba6c028ed9479a3f20ce4af0a46a25feb",
    "oauth-provider": "a1a105c27c7ab4e766ccc946b0a166a8b04c5ff3ef8aac7a5f664131c2fe187e",
    "turnkey-oauth-issuer": "1907ea3ff1cb599ede0bf433fb654024e0611a89e859e842e24620cb90a369ab",
    "enclave": "b0d09e2859a033896b88984b2642e26452882b65cf86ac5ccdb12dfae738f95f",
    "signer": "6ae9ddeb94a5a1bdf6fc153adea40a39555297dd66cd58220f549c576fc0b9bf",  # signs export and import bundles
    "vault": "3204acd0a67a01e1714ed74c8335102c6a3d2951afa7489a33585c1b2f46001e",  # seals the auth proxy's key inside its configuration
}
PROVIDER_ISSUER = "https://accounts.simulator.local"  # the fake OAuth/OIDC provider
TURNKEY_ISSUER = "https://issuer.turnkey.simulator.local"  # tokens oauth2_authenticate issues


@cache
def private(name: str) -> ec.EllipticCurvePrivateKey:
    return keys.ec_key_from_hex("p256", SECRETS[name])


def public_hex(name: str) -> str:
    """Uncompressed hex, the form @turnkey/crypto's verify helpers take as an override."""
    return keys.uncompressed(private(name)).hex()


def published() -> dict[str, str]:
    return {name: public_hex(name) for name in SECRETS}
