"""What the export and import of keys (activities/key_lifecycle.py) and of secrets
(activities/secrets.py) share: how long an import target lives, and a plaintext sealed to the
client's target key for export."""

from __future__ import annotations

from simulator.crypto import bundles, keys
from simulator.errors import InvalidArgument
from simulator.handler_support.context import Context

IMPORT_TARGET_TTL_MS = 48 * 3600 * 1000  # not public; the simulator's choice (see the README's fidelity notes)


def sealed_for_export(ctx: Context, plaintext: bytes, target_public_key: str) -> str:
    ephemeral = keys.new_ec_key(ctx.source, "p256")
    try:
        return bundles.export_bundle(plaintext, target_public_key, ctx.org.organization_id, ephemeral)
    except bundles.BundleError as exc:
        raise InvalidArgument(f"{exc} (a P-256 public key, compressed or uncompressed hex)") from None
