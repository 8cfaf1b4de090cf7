"""Sub-organizations: create_sub_organization (a child organization with its root users and, optionally,
a wallet) and delete_sub_organization (run inside the child, once its key material is exported)."""

from __future__ import annotations

import json

from simulator.activities.versions import adapted
from simulator.errors import InvalidArgument, PermissionDenied
from simulator.handler_support.context import Context, require_unique
from simulator.handler_support.limits import check_limit
from simulator.model import documented_rules, key_material, user_records, verification_tokens
from simulator.state.store import Organization
from simulator.wire import Json

# resource-limits: a parent organization may hold any number of sub-organizations, a sub-organization none
SUB_ORGANIZATIONS_IN_A_SUB_ORGANIZATION = 0


@adapted
def create_sub_organization(ctx: Context, params: Json) -> Json:
    """V2 to V8 (V1 through simulator.activities.versions): rootUsers become the root quorum with
    rootQuorumThreshold."""
    if ctx.org.parent_id is not None:  # before anything is drawn: a refusal changes nothing
        check_limit(
            len(ctx.org.children),
            1,
            SUB_ORGANIZATIONS_IN_A_SUB_ORGANIZATION,
            "sub-organizations (a sub-organization cannot create sub-organizations of its own)",
        )
    roots = params["rootUsers"]
    threshold = params["rootQuorumThreshold"]
    if not roots:
        raise InvalidArgument("quorum users missing: a sub-organization needs at least one root user")
    if not 1 <= threshold <= len(roots):
        raise InvalidArgument("quorum threshold must be non-zero integer no larger than the number of root users")
    claims = check_signup(ctx, params) if params.get("verificationToken") else None
    child = Organization(ctx.new_id(), params["subOrganizationName"], ctx.now_ms, ctx.org.organization_id)
    child.features = documented_rules.default_features(params)  # disableEmailAuth, disableOtpEmailAuth
    child_ctx = Context(ctx.store, ctx.source, ctx.now_ms, child, None, ctx.activity_type)
    built = [user_records.build_user(child_ctx, {**user, "userTags": []}) for user in roots]
    wallet = None
    if params.get("wallet"):
        spec = params["wallet"]
        wallet = key_material.new_wallet(
            child_ctx,
            spec["walletName"],
            spec["accounts"],
            mnemonic_length=spec.get("mnemonicLength", key_material.DEFAULT_MNEMONIC_LENGTH),
        )
    # V3 (simulator.activities.versions): private keys instead of a wallet, made before anything is stored
    require_unique([], [k["privateKeyName"] for k in params.get("privateKeys", [])], "private key name")
    private_keys = [
        key_material.new_private_key(
            child_ctx, k["privateKeyName"], k["curve"], k["addressFormats"], k["privateKeyTags"]
        )
        for k in params.get("privateKeys", [])
    ]
    ctx.store.add_org(child)
    for user, keys, auths in built:
        user_records.store_user(child_ctx, user, keys, auths)
    for key in private_keys:
        child.private_keys[key.private_key_id] = key
    child.root_user_ids = [user.user_id for user, _, _ in built]
    if claims is not None:  # auth-proxy.mdx, "Signup": the contact the token verified is marked verified
        verification_tokens.mark_contact_verified([user for user, _, _ in built], claims)
    child.root_threshold = threshold
    result: Json = {"subOrganizationId": child.organization_id, "rootUserIds": list(child.root_user_ids)}
    if "privateKeys" in params:
        result["privateKeys"] = [
            {"privateKeyId": k.private_key_id, "addresses": [dict(a) for a in k.addresses]} for k in private_keys
        ]
    if wallet is not None:
        result["wallet"] = {"walletId": wallet.wallet_id, "addresses": [a.address for a in wallet.accounts]}
    return result


def check_signup(ctx: Context, params: Json) -> Json:
    """A sign-up with a verification token: valid token, and the client's signature when it names a key."""
    claims = verification_tokens.verification_claims(ctx, params["verificationToken"])
    if not claims.get("public_key"):
        return claims
    signature = params.get("clientSignature")
    if signature is None:
        raise InvalidArgument("clientSignature is required: the verification token names a public key")
    try:
        message = json.loads(signature["message"])
    except (ValueError, TypeError):
        message = {}
    if message.get("tokenId") != claims["id"] or message.get("type") != "USAGE_TYPE_SIGNUP":
        raise InvalidArgument("invalid client signature: the message must name the token id and USAGE_TYPE_SIGNUP")
    verification_tokens.verify_client_signature(signature, claims)
    return claims


def delete_sub_organization(ctx: Context, params: Json) -> Json:
    """Run inside the sub-organization, by one of its root users (a parent cannot do it alone)."""
    org = ctx.org
    if org.parent_id is None:
        raise InvalidArgument(
            f"organization {org.organization_id} is not a sub-organization: delete_sub_organization runs in the "
            "sub-organization to delete"
        )
    if ctx.principal is None or ctx.principal.user.user_id not in org.root_user_ids:
        raise PermissionDenied(
            "request not authorized: a sub-organization is deleted by one of its own root users",
            error_code="INVALID_ACTIVITY_CALLER",
        )
    if org.children:
        raise InvalidArgument(
            f"organization {org.organization_id} has sub-organizations of its own ({', '.join(org.children)}); "
            "delete them first"
        )
    if not params.get("deleteWithoutExport"):
        unexported = [f"wallet {w.wallet_id}" for w in org.wallets.values() if not w.exported]
        unexported += [f"private key {k.private_key_id}" for k in org.private_keys.values() if not k.exported]
        key_material.refuse_unexported("sub-organization key material", unexported)
    ctx.store.detach_organization(org)
    return {"subOrganizationUuid": org.organization_id}
