"""Who is calling: a verified stamp mapped to a user of an organization.

Lookup order (https://docs.turnkey.com/api-reference/overview/errors, "could not find public key in
organization or its parent organization" and "more than one suborg associated with a public key";
https://docs.turnkey.com/api-reference/queries/who-am-i, a sub-organization's user may name the parent):
the target organization, then its parent; a credential of a sub-organization on a request that names the
parent resolves to that sub-organization.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from simulator.auth import attested, passkeys, stamps
from simulator.auth.stamps import Stamp
from simulator.errors import ApiError, NotFound, Unauthenticated, documented
from simulator.state.records import User
from simulator.state.store import CredentialRef, Organization, Store

_SCHEME_TYPES = {
    stamps.SECP256K1: ("CREDENTIAL_TYPE_API_KEY_SECP256K1",),
    stamps.SECP256K1_EIP191: ("CREDENTIAL_TYPE_API_KEY_SECP256K1",),
    stamps.ED25519: ("CREDENTIAL_TYPE_API_KEY_ED25519",),
}


@dataclass(frozen=True)
class Principal:
    """The caller: the organization its credential belongs to, the user, and the stamp."""

    organization: Organization
    user: User
    stamp: Stamp | None
    credential_id: str | None = None

    @property
    def is_root(self) -> bool:
        return self.user.user_id in self.organization.root_user_ids

    def for_handler(self) -> Principal:
        """The principal as a handler gets it: its user fetched from the organization's table when the handler reads
        it, as any record a handler may change (``HandlerPrincipal``)."""
        made = object.__new__(HandlerPrincipal)  # a copy of this frozen record: its fields as they are
        made.__dict__.update(vars(self))
        return made


class HandlerPrincipal(Principal):
    """A principal whose ``user`` is fetched from its organization's ``users`` at each read (the same record, or the
    one now in its place; the one authenticated once removed). Authentication and the decision read the user
    without changing it; a handler may change its requester (a session's key added, an e-mail verified), and what
    a request changes starts by fetching it from its table, which serve --data-dir's tracker then compares."""

    @property
    def user(self) -> User:  # a property: the other fields are read as a Principal's are, without a call
        held: User = self.__dict__["user"]
        fetched: User | None = self.organization.users.get(held.user_id)
        return held if fetched is None else fetched


def check_stamp(headers: Mapping[str, str], body: bytes) -> Stamp:
    """What can be checked before the body is read: the header, and an API (or attested) key's signature."""
    stamp = stamps.read_stamp(headers)
    if stamp.webauthn is None and stamp.session is None:
        stamps.verify_api_key_stamp(stamp, body)
    return stamp


def authenticate(
    store: Store,
    stamp: Stamp,
    body: bytes,
    target_org_id: str,
    now_ms: int,
    whoami: bool = False,
    *,
    note_user: bool = True,  # ignored: the user is never handed out here now (kept for callers passing it)
) -> Principal:
    """Find the credential of a checked stamp (and verify a passkey's assertion), or raise 401/404.
    ``whoami``: the lookup that goes from the stamp to the sub-organization holding it, whose unknown
    credential the catalogue answers in its own words (``unknown_credential``). The user is the one the store
    holds for the credential (``Store.credential_holder``); a handler gets it through ``Principal.for_handler``."""
    if stamp.attestation is not None:
        return Principal(*attested.attested_user(store, stamp, body, target_org_id, now_ms), stamp)
    if stamp.session is not None:
        return Principal(*attested.session_user(store, stamp.session, body, target_org_id, now_ms), stamp)
    ref = locate(store, stamp, target_org_id, whoami)
    org, user = store.credential_holder(ref)
    if stamp.webauthn is not None:
        stamps.verify_webauthn_stamp(stamp, body, user.authenticators[ref.credential_id].public_key)
        passkeys.check_assertion(stamp.webauthn, passkeys.allowed_origins(store, org))
    else:
        check_api_key(user, ref, stamp, now_ms)
    return Principal(org, user, stamp, ref.credential_id)


def trust_without_verifying(store: Store, headers: Mapping[str, str], target_org_id: str) -> Principal:
    """``--auth off``: take the stamp's credential if it is known, else the first root user."""
    target = store.org(target_org_id)
    try:
        stamp = stamps.read_stamp(headers)
        ref = locate(store, stamp, target_org_id)
        org = store.orgs[ref.organization_id]
        return Principal(org, org.users[ref.user_id], stamp, ref.credential_id)
    except (Unauthenticated, NotFound):
        user_id = (target.root_user_ids or list(target.users))[0]
        return Principal(target, target.users[user_id], None)


def locate(store: Store, stamp: Stamp, target_org_id: str, whoami: bool = False) -> CredentialRef:
    target = store.org(target_org_id)
    for org_id in (target.organization_id, target.parent_id):
        found = store.credential_ref_in(stamp.handle, org_id)
        if found is not None:
            return found
    refs = store.credential_refs(stamp.handle)
    below = {o.organization_id for o in store.descendants(target.organization_id)}
    match = [r for r in refs if r.organization_id in below]
    if len({r.organization_id for r in match}) > 1:
        what = "credential ID" if stamp.webauthn else "public key"
        raise Unauthenticated(f"more than one suborg associated with a {what}", error_code="CREDENTIAL_CONFLICT")
    if match:
        return match[0]
    raise unknown_credential(stamp, target_org_id, whoami)


def unknown_credential(stamp: Stamp, target_org_id: str, whoami: bool) -> ApiError:
    """A stamp no organization in reach knows. A request to an organization: 404/5 for a passkey, 401/16
    for an API key. whoami, which looks the credential up across the sub-organizations: 401/16 with the
    catalogue's "... could not be found in organization or its parent organization" first."""
    if stamp.webauthn is not None:
        detail = (
            f"webauthn authenticator not found in organization or parent organization "
            f"(credential id {stamp.handle}, organization {target_org_id})"
        )
        if whoami:
            head = "credential ID could not be found in organization or its parent organization"
            return Unauthenticated(documented(head, detail), error_code="CREDENTIAL_NOT_FOUND")
        return NotFound(detail, error_code="CREDENTIAL_NOT_FOUND")
    detail = (
        f"could not find public key in organization or its parent organization "
        f"(public key {stamp.handle}, organization {target_org_id})"
    )
    if whoami:
        detail = documented("public key could not be found in organization or its parent organization", detail)
    return Unauthenticated(detail, error_code="PUBLIC_KEY_NOT_FOUND")


def check_api_key(user: User, ref: CredentialRef, stamp: Stamp, now_ms: int) -> None:
    key = user.api_keys[ref.credential_id]
    allowed = _SCHEME_TYPES.get(stamp.scheme)
    p256_key = key.credential_type not in ("CREDENTIAL_TYPE_API_KEY_SECP256K1", "CREDENTIAL_TYPE_API_KEY_ED25519")
    if (allowed and key.credential_type not in allowed) or (allowed is None and not p256_key):
        raise Unauthenticated(
            f"could not verify api key signature: scheme {stamp.scheme} does not fit the "
            f"registered key's type {key.credential_type}",
            error_code="SIGNATURE_INVALID",
        )
    expires = key.expires_at_ms()
    if expires is not None and now_ms >= expires:
        # The "rpc error ... desc =" wording is what @turnkey/core matches to SESSION_EXPIRED.
        raise Unauthenticated(
            f"rpc error: code = Unauthenticated desc = expired api key publicKey: {key.public_key}",
            error_code="API_KEY_EXPIRED",
        )
