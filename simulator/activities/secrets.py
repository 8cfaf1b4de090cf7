"""Secret storage with the enclave's real bundles (the same envelopes as key import and export).

init_import_secrets mints one single-use ingress target per secret, signed like an import bundle
(ServerTargetMsgV1: ``{targetPublic, organizationId, userId}`` in the signed envelope); import_secrets
opens what the client sealed to each target (ClientSendMsg ``{encappedPublic, ciphertext}``) and
keeps the plaintext; export_secrets seals each secret to the request's target key in the signed
ServerSendMsg (``{encappedPublic, ciphertext, organizationId}``). Batches are all-or-nothing.
"""

from __future__ import annotations

from simulator.crypto import bundles, keys
from simulator.errors import InvalidArgument
from simulator.handler_support.context import Context, require_unique
from simulator.model.enclave_bundles import IMPORT_TARGET_TTL_MS, sealed_for_export
from simulator.state import longtail_records
from simulator.state.longtail_records import Secret
from simulator.state.records import ImportTarget
from simulator.wire import Json

SECRET = "secret"
MAX_PER_REQUEST = 100  # not public; the simulator's bound


def init_import_secrets(ctx: Context, params: Json) -> Json:
    count = params["numSecrets"]
    if not 1 <= count <= MAX_PER_REQUEST:
        raise InvalidArgument(f"invalid numSecrets {count}: expected 1 to {MAX_PER_REQUEST}")
    user_id = ctx.principal.user.user_id if ctx.principal else ""
    messages = []
    for _ in range(count):
        key = keys.new_ec_key(ctx.source, "p256")
        target = ImportTarget(
            ctx.new_id(),
            ctx.org.organization_id,
            user_id,
            SECRET,
            keys.private_hex(key),
            ctx.now_ms,
            ctx.now_ms + IMPORT_TARGET_TTL_MS,
        )
        ctx.store.import_targets[target.target_id] = target  # several stay live at once: one per secret
        messages.append(bundles.target_bundle(key, ctx.org.organization_id, user_id))
    return {"enclaveTargetMessages": messages}


def import_secrets(ctx: Context, params: Json) -> Json:
    items = params["secrets"]
    names = [s["name"] for s in items if s.get("name")]
    stored = longtail_records.secrets(ctx.org.longtail)
    require_unique([s.name for s in stored.values()], names, "secret name")
    opened = [open_ingress(ctx, i, item) for i, item in enumerate(items)]
    ids = []
    for item, (target, plaintext) in zip(items, opened):
        target.state = "used"
        secret_id = ctx.new_id()
        stored[secret_id] = Secret(
            secret_id,
            item.get("name", ""),
            [{"key": p.get("key", ""), "value": p.get("value", "")} for p in item.get("staticProperties", [])],
            str(ctx.now_ms),
            plaintext.hex(),
        )
        ids.append(secret_id)
    return {"secretIds": ids}


def open_ingress(ctx: Context, index: int, item: Json) -> tuple[ImportTarget, bytes]:
    where = f"secrets[{index}]"
    target = ingress_target(ctx, item["targetPublicKey"], where)
    try:
        enc, ciphertext = bundles.parse_sealed(item["secretPayload"])
    except bundles.BundleError as exc:
        raise InvalidArgument(f"invalid {where}.secretPayload: {exc}") from None
    plaintext = bundles.open_with(enc, ciphertext, keys.ec_key_from_hex("p256", target.private_key))
    if plaintext is None:
        raise InvalidArgument(f"invalid {where}.secretPayload: it does not open with its targetPublicKey's key")
    return target, plaintext


def ingress_target(ctx: Context, public_hex: str, where: str) -> ImportTarget:
    """The live ingress target of this organization whose public key is ``public_hex``."""
    for target in ctx.store.import_targets.values():
        if target.kind != SECRET or target.organization_id != ctx.org.organization_id:
            continue
        if keys.uncompressed(keys.ec_key_from_hex("p256", target.private_key)).hex() != public_hex.lower():
            continue
        if target.state == "used":
            raise InvalidArgument(f"invalid {where}.targetPublicKey: that ingress key was already used (single use)")
        if target.expires_ms <= ctx.now_ms:
            raise InvalidArgument(f"invalid {where}.targetPublicKey: that ingress key expired; run init_import_secrets")
        return target
    raise InvalidArgument(
        f"invalid {where}.targetPublicKey: not an ingress key init_import_secrets issued to this organization"
    )


def export_secrets(ctx: Context, params: Json) -> Json:
    stored = longtail_records.secrets(ctx.org.longtail)
    found = ctx.existing(stored, [s["secretId"] for s in params["secrets"]], "secrets")
    payloads = [
        sealed_for_export(ctx, bytes.fromhex(secret.plaintext), item["targetPublicKey"])
        for secret, item in zip(found, params["secrets"])
    ]
    return {"secretPayloads": payloads}


# what policies read: the language's `secret` (features/secrets, "Static properties") --------------
def export_secrets_context(ctx: Context, params: Json) -> Json:
    """``secret`` for an export of one secret. The service evaluates a batch once per secret and exports
    it only if every evaluation allows; one context per activity cannot say that, so a batch of several
    gives none, and a condition on ``secret`` errors for it: the batch fails closed (docs/ledger/docs-platform.yaml)."""
    wanted = params.get("secrets") or []
    found = longtail_records.secrets(ctx.org.longtail).get(str(wanted[0].get("secretId"))) if len(wanted) == 1 else None
    if found is None:
        return {}
    properties = {str(p.get("key")): str(p.get("value")) for p in found.static_properties}
    return {"secret": {"id": found.secret_id, "name": found.name, "static_properties": properties}}
