"""What every family that signs shares (raw payloads, transactions, broadcasts): the key behind an
address or a private key id, an ECDSA signature as the service returns it, and what policies read
of a typed-data or authorization payload."""

from __future__ import annotations

from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import Prehashed, decode_dss_signature

from simulator.crypto import keys
from simulator.errors import NotFound
from simulator.handler_support.context import Context
from simulator.model.key_material import derive
from simulator.model.signer_views import signer_of
from simulator.state import lookups
from simulator.wire import Json


def signing_key(ctx: Context, sign_with: str) -> tuple[str, bytes]:
    """The curve and private key behind a wallet account address, a private key id or its address."""
    curve, secret, _ = signer(ctx, sign_with)
    return curve, secret


def signer(ctx: Context, sign_with: str) -> tuple[str, bytes, str | None]:
    """``signing_key``, and the address format of the wallet account ``sign_with`` names exactly (None for a
    private key, or an address given in other letter case): one look through the organization's accounts."""
    found = signer_of(ctx, sign_with)
    if found is not None and found.kind == lookups.WALLET_ACCOUNT:
        exact = found.address_format if found.address == sign_with else None
        return found.curve, derive(found.seed, found.curve, found.path).private_key, exact
    if found is not None:
        return found.curve, found.secret, None
    raise NotFound(
        f"could not find a wallet account or private key {sign_with!r} to sign with in organization "
        f"{ctx.org.organization_id}",
        error_code="REQUEST_INVALID",
    )


def payload_view(payload: str, encoding: str) -> Json:
    """What policies read of a payload: ``eth.eip_712`` or ``eth.eip_7702_authorization``, else nothing."""
    from simulator.chains import eip712, eth_authorization

    if encoding == "PAYLOAD_ENCODING_EIP712":
        return {"eth": {"eip_712": eip712.typed_data_view(payload)}}
    if encoding == "PAYLOAD_ENCODING_EIP7702_AUTHORIZATION":
        return {"eth": {"eip_7702_authorization": eth_authorization.authorization_view(payload)}}
    return {}


def ecdsa(curve: str, secret: bytes, digest: bytes) -> Json:
    if curve == "CURVE_SECP256K1":
        signature = keys.secp256k1_signer(secret).sign_recoverable(digest, hasher=None)
        return {"r": signature[:32].hex(), "s": signature[32:64].hex(), "v": f"{signature[64]:02x}"}
    key = ec.derive_private_key(int.from_bytes(secret, "big"), ec.SECP256R1())
    der = key.sign(digest, ec.ECDSA(Prehashed(hashes.SHA256()), deterministic_signing=True))
    r, s = decode_dss_signature(der)
    return {"r": f"{r:064x}", "s": f"{s:064x}", "v": "00"}
