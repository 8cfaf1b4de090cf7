"""Finding sub-organizations by what their users hold."""

from __future__ import annotations

from collections.abc import Callable

from simulator.errors import InvalidArgument
from simulator.handler_support.query_context import QueryContext
from simulator.model.oidc import token_claims
from simulator.queries.pagination import paginate
from simulator.state.records import User
from simulator.state.store import Organization
from simulator.wire import Json

Matcher = Callable[[Organization, str], bool]


def list_suborgs(q: QueryContext, body: Json) -> Json:
    """Sub-organizations of the organization, optionally those whose users match a filter."""
    return {"organizationIds": find_suborgs(q, body, MATCHERS, verified_only=False)}


def list_verified_suborgs(q: QueryContext, body: Json) -> Json:
    """Sub-organizations with a user whose email or phone number is verified (and matches, if filtered)."""
    return {"organizationIds": find_suborgs(q, body, VERIFIED_MATCHERS, verified_only=True)}


def find_suborgs(q: QueryContext, body: Json, matchers: dict[str, Matcher], verified_only: bool) -> list[str]:
    filter_type, value = body.get("filterType") or "", body.get("filterValue") or ""
    if bool(filter_type) != bool(value):
        raise InvalidArgument("filterType and filterValue go together: give both or neither")
    if filter_type and filter_type not in matchers:
        raise InvalidArgument(f"unknown filterType {filter_type!r}: expected one of {', '.join(matchers)}")
    children = [q.store.orgs[c] for c in q.org.children if c in q.store.orgs]
    if filter_type:
        children = [c for c in children if matchers[filter_type](c, value)]
    elif verified_only:
        children = [c for c in children if any(u.email_verified or u.phone_verified for u in c.users.values())]
    page = paginate(children, body.get("paginationOptions"), key=lambda o: o.organization_id)
    return [o.organization_id for o in page]


def any_user(org: Organization, test: Callable[[User], bool]) -> bool:
    return any(test(u) for u in org.users.values())


def by_oidc_token(org: Organization, token: str) -> bool:
    claims = token_claims(token)
    aud = claims.get("aud")
    wanted = (claims.get("iss"), claims.get("sub"), aud[0] if isinstance(aud, list) and aud else aud)
    return any_user(org, lambda u: any((p["issuer"], p["subject"], p["audience"]) == wanted for p in u.oauth_providers))


def by_address(org: Organization, address: str) -> bool:
    if any(a.address == address for w in org.wallets.values() for a in w.accounts):
        return True
    return any(a["address"] == address for k in org.private_keys.values() for a in k.addresses)


MATCHERS: dict[str, Matcher] = {
    "CREDENTIAL_ID": lambda org, v: any_user(
        org, lambda u: any(a.credential_id == v for a in u.authenticators.values())
    ),
    "NAME": lambda org, v: org.name == v,
    "USERNAME": lambda org, v: any_user(org, lambda u: u.name == v),
    "EMAIL": lambda org, v: any_user(org, lambda u: (u.email or "").lower() == v.lower()),
    "PHONE_NUMBER": lambda org, v: any_user(org, lambda u: u.phone_number == v),
    "OIDC_TOKEN": by_oidc_token,
    "WALLET_ACCOUNT_ADDRESS": by_address,
    "PUBLIC_KEY": lambda org, v: any_user(org, lambda u: any(k.public_key == v.lower() for k in u.api_keys.values())),
}
VERIFIED_MATCHERS: dict[str, Matcher] = {
    "EMAIL": lambda org, v: any_user(org, lambda u: u.email_verified and (u.email or "").lower() == v.lower()),
    "PHONE_NUMBER": lambda org, v: any_user(org, lambda u: u.phone_verified and u.phone_number == v),
}
