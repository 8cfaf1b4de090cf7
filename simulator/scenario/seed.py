"""Turning a checked scenario into organizations, users, credentials, wallets and the rest."""

from __future__ import annotations

from typing import Any

from cryptography.hazmat.primitives.asymmetric import ec

from simulator.auth_proxy_config import config as proxy_config
from simulator.clock import Source
from simulator.config import origin_text
from simulator.consensus import throttle
from simulator.crypto import keys
from simulator.errors import ApiError
from simulator.handler_support.context import Context
from simulator.model import credential_records, documented_rules, policy_records
from simulator.operations import operation_names
from simulator.scenario import Scenario
from simulator.standins import chain as chain_standin
from simulator.standins import longtail
from simulator.state.records import Tag, User
from simulator.state.store import Organization, Store
from simulator.wire import Json, b64url_encode

Path = tuple[str | int, ...]


def apply(scenario: Scenario, store: Store, source: Source, now_ms: int) -> list[Json]:
    """Create everything the scenario declares; returns the key pairs it reported."""
    made: list[Json] = []
    store.otp_codes.update(scenario.data.get("otpCodes", {}))
    store.cors_origins.extend(o for o in cors_origins(scenario) if o not in store.cors_origins)
    store.allowed_hosts.extend(h for h in scenario.data.get("allowedHosts", []) if h not in store.allowed_hosts)
    longtail.apply(scenario, store)
    chain_standin.apply(scenario, store)
    for i, spec in enumerate(scenario.data.get("organizations", [])):
        Seeder(scenario, store, source, now_ms, made).organization(("organizations", i), spec, None)
    return made


class Seeder:
    def __init__(self, scenario: Scenario, store: Store, source: Source, now_ms: int, made: list[Json]) -> None:
        self.sc, self.store, self.source, self.now, self.made = scenario, store, source, now_ms, made

    def organization(self, path: Path, spec: Json, parent_id: str | None) -> None:
        org_id = spec.get("id") or self.source.uuid4()
        if org_id in self.store.orgs:
            raise self.sc.error(path + ("id",), f"organization id {org_id} is used twice")
        name = spec.get("name") or f"{self.source.faker().company()} (simulated)"
        org = self.store.add_org(Organization(org_id, name, self.now, parent_id))
        org.balances_access = spec.get("balancesAccess", True)
        ctx = Context(self.store, self.source, self.now, org)
        users = {
            u.get("ref", u.get("name", str(j))): self.user(ctx, path + ("users", j), u)
            for j, u in enumerate(spec.get("users", []))
        }
        self.quorum(ctx, path, spec.get("rootQuorum"), users)
        # the documented defaults (e-mail auth and OTP e-mail auth on, unless disabled), then the listed features
        org.features = documented_rules.default_features(spec)
        org.features.update({f["name"]: f.get("value", "") for f in spec.get("features", [])})
        self.resources(ctx, path, spec)
        if "authProxy" in spec:
            self.guard(path + ("authProxy",), lambda: proxy_config.enable(ctx, dict(spec["authProxy"])))
        for k, child in enumerate(spec.get("subOrganizations", [])):
            self.organization(path + ("subOrganizations", k), child, org_id)

    def resources(self, ctx: Context, path: Path, spec: Json) -> None:
        for j, w in enumerate(spec.get("wallets", [])):
            self.guard(path + ("wallets", j), lambda w=w: self.wallet(ctx, w))
        for j, k in enumerate(spec.get("privateKeys", [])):
            self.guard(path + ("privateKeys", j), lambda k=k: self.private_key(ctx, k))
        self.guard(
            path + ("policies",),
            lambda: policy_records.add_policies(
                ctx,
                [policy_params(p) for p in spec.get("policies", [])],
                unknown_params_refused=False,  # a file that loaded before still loads: its check warns
            ),
        )
        for c in spec.get("oauth2Credentials", []):
            credential_records.new_oauth2_credential(ctx, c)
        for c in spec.get("fiatOnRampCredentials", []):
            credential_records.new_fiat_on_ramp_credential(ctx, c)
        for b in spec.get("balances", []):
            ctx.org.balances[(b["address"], b["caip2"])] = [dict(a) for a in b.get("assets", [])]

    def wallet(self, ctx: Context, spec: Json) -> None:
        # imported on first use: keeps serve's start-up short (the default scenario declares no wallets)
        from simulator.model import key_material

        key_material.new_wallet(
            ctx,
            spec["name"],
            spec.get("accounts", []),
            mnemonic=spec.get("mnemonic"),
            mnemonic_length=spec.get("mnemonicLength", 12),
            wallet_id=spec.get("id"),
        )

    def guard(self, path: Path, action: Any) -> None:
        try:
            action()
        except (ApiError, ValueError) as exc:
            raise self.sc.error(path, getattr(exc, "message", str(exc))) from None

    def user(self, ctx: Context, path: Path, spec: Json) -> User:
        user = User(
            spec.get("id") or ctx.new_id(),
            spec.get("name") or self.source.faker().name(),
            self.now,
            email=spec.get("email"),
            phone_number=spec.get("phoneNumber"),
        )
        user.tag_ids = [self.tag(ctx, name, "TAG_TYPE_USER").tag_id for name in spec.get("tags", [])]
        ctx.org.users[user.user_id] = user
        for j, k in enumerate(spec.get("apiKeys", [])):
            self.guard(path + ("apiKeys", j), lambda k=k: self.api_key(ctx, user, k))
        for j, a in enumerate(spec.get("authenticators", [])):
            self.guard(path + ("authenticators", j), lambda a=a: self.authenticator(ctx, user, a))
        return user

    def api_key(self, ctx: Context, user: User, spec: Json) -> None:
        curve = spec.get("curve", "API_KEY_CURVE_P256")
        public, private = spec.get("publicKey"), spec.get("privateKey")
        if public is None:
            public, private = self.key_pair(curve, private)
        params = {
            "apiKeyName": spec.get("name", "API key"),
            "publicKey": public,
            "curveType": curve,
            "expirationSeconds": spec.get("expirationSeconds"),
        }
        key = credential_records.new_api_key(ctx, params)
        credential_records.add_api_keys(ctx, user, [key])
        self.made.append(
            {
                "organizationId": ctx.org.organization_id,
                "userId": user.user_id,
                "userName": user.name,
                "apiKeyId": key.api_key_id,
                "curve": curve,
                "apiPublicKey": key.public_key,
                "apiPrivateKey": private,
            }
        )

    def key_pair(self, curve: str, private: str | None) -> tuple[str, str]:
        if curve == "API_KEY_CURVE_ED25519":
            secret = bytes.fromhex(private) if private else self.source.bytes(32)
            return keys.public_key_for("CURVE_ED25519", secret).hex(), secret.hex()
        name = "p256" if curve == "API_KEY_CURVE_P256" else "secp256k1"
        key = keys.ec_key_from_hex(name, private) if private else keys.new_ec_key(self.source, name)
        return keys.compressed_hex(key), keys.private_hex(key)

    def authenticator(self, ctx: Context, user: User, spec: Json) -> None:
        private = spec.get("privateKey")
        if spec.get("publicKey"):
            point = bytes.fromhex(spec["publicKey"])
            ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), point)
        else:
            key = keys.ec_key_from_hex("p256", private) if private else keys.new_ec_key(self.source, "p256")
            point, private = keys.uncompressed(key), keys.private_hex(key)
        cred_id = spec.get("credentialId") or b64url_encode(self.source.bytes(16))
        auth = credential_records.authenticator_record(
            ctx,
            spec.get("name", "Passkey"),
            cred_id,
            point,
            spec.get("transports", ["AUTHENTICATOR_TRANSPORT_INTERNAL"]),
        )
        credential_records.add_authenticators(ctx, user, [auth])
        self.made.append(
            {
                "organizationId": ctx.org.organization_id,
                "userId": user.user_id,
                "userName": user.name,
                "authenticatorId": auth.authenticator_id,
                "credentialId": cred_id,
                "authenticatorPrivateKey": private,
            }
        )

    def quorum(self, ctx: Context, path: Path, spec: Json | None, users: dict[str, User]) -> None:
        if spec is None:
            ctx.org.root_user_ids = [next(iter(users.values())).user_id] if users else []
            return
        unknown = [r for r in spec["users"] if r not in users]
        if unknown:
            raise self.sc.error(
                path + ("rootQuorum", "users"), f"unknown user refs {unknown}; declared users: {sorted(users)}"
            )
        if not 1 <= spec.get("threshold", 1) <= len(spec["users"]):
            raise self.sc.error(
                path + ("rootQuorum", "threshold"), "quorum threshold must be between 1 and the number of quorum users"
            )
        ctx.org.root_user_ids = [users[r].user_id for r in spec["users"]]
        ctx.org.root_threshold = spec.get("threshold", 1)

    def tag(self, ctx: Context, name: str, tag_type: str) -> Tag:
        for tag in ctx.org.tags.values():
            if tag.name == name and tag.tag_type == tag_type:
                return tag
        tag = Tag(ctx.new_id(), name, tag_type, self.now)
        ctx.org.tags[tag.tag_id] = tag
        return tag

    def private_key(self, ctx: Context, spec: Json) -> None:
        # imported on first use: keeps serve's start-up short (the default scenario declares no private keys)
        from simulator.model import key_material

        secret = bytes.fromhex(spec["privateKey"]) if spec.get("privateKey") else None
        tag_ids = [self.tag(ctx, name, "TAG_TYPE_PRIVATE_KEY").tag_id for name in spec.get("tags", [])]
        key = key_material.new_private_key(
            ctx,
            spec["name"],
            spec["curve"],
            spec.get("addressFormats", []),
            tag_ids,
            secret=secret,
            key_id=spec.get("id"),
        )
        ctx.org.private_keys[key.private_key_id] = key


def cors_origins(scenario: Scenario) -> list[str]:
    """The scenario's ``cors.origins``, written as browsers send them (simulator/web/cors.py uses them)."""
    origins = (scenario.data.get("cors") or {}).get("origins", [])
    found = []
    for i, origin in enumerate(origins):
        try:
            found.append(origin_text(origin))
        except ValueError as exc:
            raise scenario.error(("cors", "origins", i), str(exc)) from None
    return found


def rules(scenario: Scenario, existing: list[Json]) -> list[Json]:
    """The scenario's scripted rules, checked: names are unique, approvers are checked when used."""
    names = {r["name"] for r in existing}
    found = scenario.data.get("rules", [])
    for i, rule in enumerate(found):
        if rule["name"] in names:
            raise scenario.error(("rules", i, "name"), f"rule name {rule['name']!r} is used twice")
        names.add(rule["name"])
    return [named_operations(r) for r in found] + rate_limit_rules(scenario, names)


def named_operations(rule: Json) -> Json:
    """The rule, its ``match.operation`` names an official client's method (get_wallets) would give read as
    the operation's (list_wallets), as the throttle compares them with the URL's (the checks noted them)."""
    found = dict(rule)
    match = found.get("match")
    if isinstance(match, dict) and "operation" in match:
        value = match["operation"]
        names = [value] if isinstance(value, str) else list(value)
        meant = [operation_names.resolve(n, operation_names.API).operation or n for n in names]
        found["match"] = {**match, "operation": meant[0] if isinstance(value, str) else meant}
    return found


def rate_limit_rules(scenario: Scenario, names: set[str]) -> list[Json]:
    """The scenario's ``rateLimits:`` key as the budget rules consensus/throttle applies."""
    try:
        limits = throttle.from_scenario(scenario.data.get("rateLimits"))
    except ValueError as exc:
        raise scenario.error(("rateLimits",), str(exc)) from None
    made = throttle.budget_rules(limits) if limits is not None else []
    for rule in made:
        if rule["name"] in names:
            raise scenario.error(("rateLimits",), f"rate limits are set twice (rule {rule['name']!r} exists)")
    return made


def policy_params(spec: Json) -> Json:
    return {
        "policyName": spec["name"],
        "effect": spec["effect"],
        "notes": spec.get("notes", ""),
        "condition": spec.get("condition", ""),
        "consensus": spec.get("consensus", ""),
        **({"time": spec["time"]} if spec.get("time") else {}),
    }
