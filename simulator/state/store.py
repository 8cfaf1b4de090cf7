"""The in-memory store: organizations (with sub-organizations), their resources and activities."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from simulator.errors import NotFound
from simulator.state import longtail_records, lookups
from simulator.state.activity import Activity
from simulator.state.copying import copy_store
from simulator.state.records import (
    ApiKey,
    Authenticator,
    ImportTarget,
    IpAllowlist,
    Otp,
    Policy,
    PrivateKey,
    Record,
    SentTransaction,
    SessionProfile,
    Tag,
    User,
    Wallet,
    WebhookEndpoint,
)
from simulator.state.retention import Retention
from simulator.state.tables import ActivityIds, ActivityTable
from simulator.webhook_events import ACTIVITY_UPDATES
from simulator.wire import Json

T = TypeVar("T")
NO_REFS: tuple[CredentialRef, ...] = ()


# organizations.mdx, "Features": e-mail auth and OTP e-mail auth are "Enabled" by default (simulator.model.documented_rules)
DEFAULT_FEATURE_NAMES = ("FEATURE_NAME_EMAIL_AUTH", "FEATURE_NAME_OTP_EMAIL_AUTH")


@dataclass
class Organization:
    organization_id: str
    name: str
    created_ms: int
    parent_id: str | None = None
    children: list[str] = field(default_factory=list)
    users: dict[str, User] = field(default_factory=dict)
    root_user_ids: list[str] = field(default_factory=list)
    root_threshold: int = 1
    features: dict[str, str] = field(default_factory=dict)
    tags: dict[str, Tag] = field(default_factory=dict)
    wallets: dict[str, Wallet] = field(default_factory=dict)
    private_keys: dict[str, PrivateKey] = field(default_factory=dict)
    policies: dict[str, Policy] = field(default_factory=dict)
    invitations: dict[str, Record] = field(default_factory=dict)
    smart_contract_interfaces: dict[str, Record] = field(default_factory=dict)
    oauth2_credentials: dict[str, Record] = field(default_factory=dict)
    fiat_credentials: dict[str, Record] = field(default_factory=dict)
    balances: dict[tuple[str, str], list[Json]] = field(default_factory=dict)
    balances_access: bool = True
    activities: ActivityTable = field(default_factory=ActivityTable)
    webhook_endpoints: dict[str, WebhookEndpoint] = field(default_factory=dict)
    ip_allowlists: dict[str, IpAllowlist] = field(default_factory=dict)  # "" = the organization's, else by key
    # swaps, earn, TVC, secrets, on-ramp: table name -> record id -> record (simulator.state.longtail_records)
    longtail: dict[str, dict[str, Any]] = field(default_factory=dict)
    session_profiles: dict[str, SessionProfile] = field(default_factory=dict)
    # made by 0.3.0 or later, with the documented default features: an organization a state of an earlier release
    # holds has no such field, and is given the default features when it is read (codec.build_now)
    default_features_given: bool = True

    def __post_init__(self) -> None:
        if not isinstance(self.activities, (ActivityTable, ActivityIds)):  # a decoded document: a plain dict
            self.activities = ActivityTable(self.activities)
        longtail_records.adopt(self.longtail)  # a decoded document holds its records in their JSON form

    def user(self, user_id: str) -> User:
        return self.find(self.users, user_id, "user")

    def find(self, table: Mapping[str, T], item_id: str, what: str, error_code: str = "REQUEST_INVALID") -> T:
        """``table[item_id]``, or the service's NotFound naming what was looked for in this organization."""
        try:
            return table[item_id]
        except KeyError:
            raise NotFound(
                f"{what} {item_id} not found in organization {self.organization_id}", error_code=error_code
            ) from None

    def features_api(self) -> list[Json]:
        return [{"name": name, "value": value} for name, value in self.features.items()]


@dataclass
class MnemonicStream:
    """Where new wallets' mnemonics come from: the n-th is drawn from ``key`` and n alone
    (activities.mnemonics), so a seeded run repeats them and a pool can compute them ahead."""

    key: str = ""  # hex; "" until the simulator seeds it (a document of an older version has none)
    position: int = 0


@dataclass(frozen=True)
class CredentialRef:
    """Where a stamping credential lives."""

    organization_id: str
    user_id: str
    credential_id: str  # apiKeyId or authenticatorId


class Store:
    """Every organization and activity, with indexes for stamps and fingerprints."""

    # not state: neither copied by snapshots nor exported
    TRANSIENT = ("retention", "_refs_by_org", "strict_email", "enforce_documented_rules")
    # the simulator's settings, set by its owner on every store it uses (a store made otherwise, decoded or
    # copied, reads these defaults): Config.strict_email / a scenario's strictEmail, and whether handlers enforce
    # the documented rules added after 0.2.0 (serve --lenient-documented-rules, a scenario's lenientDocumentedRules;
    # simulator.model.documented_rules)
    strict_email: bool = False
    enforce_documented_rules = True
    FLAT = ("fingerprints", "evaluations")  # values never changed in place: snapshots copy the tables only

    def __init__(self) -> None:
        self.orgs: dict[str, Organization] = {}
        self.activities: ActivityTable = ActivityTable()
        self.fingerprints: dict[str, str] = {}
        self.evaluations: dict[str, Sequence[Any]] = {}  # Evaluation records (dicts in older documents)
        self.rule_hits: dict[str, int] = {}  # scripted rules: how many requests each has matched
        self.otps: dict[str, Otp] = {}
        self.outbox: list[Json] = []  # every OTP "sent", for tests to read
        # fixed codes per contact: the sandbox contacts of email.mdx and sms.mdx, then a scenario's
        self.otp_codes: dict[str, str] = {"user@example.com": "000000", "+19999999999": "000000"}
        self.oauth_codes: dict[str, Json] = {}  # the fake provider's authorization codes
        self.used_tokens: set[str] = set()  # verification token ids already spent
        self.proxy_configs: dict[str, Json] = {}  # auth proxy configurations by config id
        self.import_targets: dict[str, ImportTarget] = {}  # init_import_* target keys by target id
        self.mfa_statuses: dict[str, list[Json]] = {}  # get_mfa_status by activity id, written by MFA enforcement
        self.longtail_seed: Json = {}  # a scenario's `longtail` key: assets, vaults, TVC images, status scripts
        # the broadcast stand-in (simulator.standins.chain): sent transactions by status id, next
        # nonces by "caip2 address", and the scenario's `broadcast` key (starting nonces, gas usage, status scripts)
        self.sent_transactions: dict[str, SentTransaction] = {}
        self.chain_nonces: dict[str, int] = {}
        self.broadcast_seed: Json = {}
        self.cors_origins: list[str] = []  # a scenario's `cors: {origins}`: browser origins the main interface answers
        self.allowed_hosts: list[str] = []  # a scenario's `allowedHosts`: Host names every port answers (host_check)
        self.mnemonic_stream = MnemonicStream()
        self._credentials: dict[str, list[CredentialRef]] = {}
        self.retention: Retention = Retention()  # not part of the state: the simulator's setting

    # organizations -------------------------------------------------------------------------
    def add_org(self, org: Organization) -> Organization:
        self.orgs[org.organization_id] = org
        if org.parent_id:
            self.org(org.parent_id).children.append(org.organization_id)
        return org

    def org(self, organization_id: str) -> Organization:
        try:
            return self.orgs[organization_id]
        except KeyError:
            raise NotFound(
                f"no organization found with the given ID: {organization_id}",
                error_code="ORGANIZATION_NOT_FOUND",
            ) from None

    def descendants(self, organization_id: str) -> list[Organization]:
        out: list[Organization] = []
        for child_id in self.org(organization_id).children:
            out.append(self.orgs[child_id])
            out.extend(self.descendants(child_id))
        return out

    # credentials ---------------------------------------------------------------------------
    def add_api_key(self, org: Organization, user: User, key: ApiKey) -> None:
        user.api_keys[key.api_key_id] = key
        ref = CredentialRef(org.organization_id, user.user_id, key.api_key_id)
        self._add_ref(key.public_key.lower(), ref)

    def remove_api_key(self, org: Organization, user: User, api_key_id: str) -> None:
        key = user.api_keys.pop(api_key_id)
        self._drop_ref(key.public_key.lower(), api_key_id)

    def add_authenticator(self, org: Organization, user: User, auth: Authenticator) -> None:
        user.authenticators[auth.authenticator_id] = auth
        ref = CredentialRef(org.organization_id, user.user_id, auth.authenticator_id)
        self._add_ref(auth.credential_id, ref)

    def remove_authenticator(self, org: Organization, user: User, authenticator_id: str) -> None:
        auth = user.authenticators.pop(authenticator_id)
        self._drop_ref(auth.credential_id, authenticator_id)

    def remove_user_credentials(self, user: User) -> None:
        for key_id in list(user.api_keys):
            self._drop_ref(user.api_keys[key_id].public_key.lower(), key_id)
        for auth_id in list(user.authenticators):
            self._drop_ref(user.authenticators[auth_id].credential_id, auth_id)

    def credential_refs(self, handle: str) -> Sequence[CredentialRef]:
        """Every place a public key (hex) or WebAuthn credential id is registered (the store's own list: read it,
        under the lock, and do not keep it)."""
        refs: Sequence[CredentialRef] = self._credentials.get(handle, NO_REFS)
        return refs

    def credential_holder(self, ref: CredentialRef) -> tuple[Organization, User]:
        """The organization and user ``ref`` names, to check a stamp against. The user is read, not handed out
        (serve --data-dir does not compare it after the request for this): a handler that changes its requester
        fetches it (``auth.Principal.for_handler``)."""
        org = self.orgs[ref.organization_id]
        return org, dict.__getitem__(org.users, ref.user_id)

    def credential_ref_in(self, handle: str, organization_id: str | None) -> CredentialRef | None:
        """The first place ``handle`` is registered in ``organization_id`` (the order ``credential_refs`` lists)."""
        refs = self._credentials.get(handle)
        if not refs or not organization_id:
            return None
        # per handle, the first ref of each organization (one API key can sit in hundreds of sub-organizations),
        # made when first asked and again once the handle's list changed (appended to, or replaced); transient:
        # a snapshot, an import or a decoded store starts without it
        index: dict[str, tuple[list[CredentialRef], int, dict[str, CredentialRef]]] = self.__dict__.setdefault(
            "_refs_by_org", {}
        )
        kept = index.get(handle)
        if kept is None or kept[0] is not refs or kept[1] != len(refs):
            by_org: dict[str, CredentialRef] = {}
            for ref in refs:
                by_org.setdefault(ref.organization_id, ref)
            kept = index[handle] = (refs, len(refs), by_org)
        return kept[2].get(organization_id)

    # the index's lists are replaced at each change, never changed in place: serve --data-dir then notes the
    # index's writes only (a WrittenDict), and every request's lookup of its stamp's key reads it freely
    def _add_ref(self, handle: str, ref: CredentialRef) -> None:
        self._credentials[handle] = [*self._credentials.get(handle, NO_REFS), ref]

    def _drop_ref(self, handle: str, credential_id: str) -> None:
        refs = [r for r in self._credentials.get(handle, NO_REFS) if r.credential_id != credential_id]
        if refs:
            self._credentials[handle] = refs
        else:
            self._credentials.pop(handle, None)

    # activities ----------------------------------------------------------------------------
    def add_activity(self, activity: Activity) -> None:
        self.activities[activity.activity_id] = activity
        self.fingerprints[activity.fingerprint] = activity.activity_id
        org = self.orgs.get(activity.organization_id)
        if org is not None:  # delete_sub_organization removes the organization its own activity ran in
            org.activities[activity.activity_id] = activity
        self.activities.note_handed(self.retention.settle(activity))
        self.retention.evict(self)

    def drop_activity(self, activity: Activity) -> None:
        """Forget a finished activity (retention): its record, evaluations and fingerprint."""
        self.activities.pop(activity.activity_id, None)
        org = self.orgs.get(activity.organization_id)
        if org is not None:
            org.activities.pop(activity.activity_id, None)
        if self.fingerprints.get(activity.fingerprint) == activity.activity_id:
            del self.fingerprints[activity.fingerprint]
        self.evaluations.pop(activity.activity_id, None)
        self.mfa_statuses.pop(activity.activity_id, None)

    def sweep_fingerprints(self) -> None:
        """Drop fingerprints (votes' included) of activities no longer kept."""
        kept = self.activities
        self.fingerprints = {k: v for k, v in self.fingerprints.items() if v in kept}

    def activity_by_fingerprint(self, fingerprint: str) -> Activity | None:
        activity_id = self.fingerprints.get(fingerprint)
        return self.activities.get(activity_id) if activity_id else None

    def outbox_for(self, contact: str | None = None) -> list[Json]:
        """Every message "sent" (to ``contact``, case-insensitively), oldest first."""
        wanted = contact.lower() if contact is not None else None
        return [dict(m) for m in self.outbox if wanted is None or m["contact"].lower() == wanted]

    def waiting_activities(self) -> list[Activity]:
        """Activities whose scripted wait has not ended yet."""
        return [a for a in self.activities.values() if a.pending is not None and a.pending.final is not None]

    def is_below(self, org: Organization, ancestor: Organization) -> bool:
        """Whether ``org`` is a (transitive) sub-organization of ``ancestor``."""
        parent = org.parent_id
        while parent:
            if parent == ancestor.organization_id:
                return True
            parent = self.orgs[parent].parent_id
        return False

    # key lifecycle ---------------------------------------------------------------------------
    def add_import_target(self, target: ImportTarget, keep: int = 5) -> None:
        """A new target replaces the user's live one of the same kind; the last ``keep`` stay
        known, so that an import sealed to an older one is told apart from a corrupt one."""
        same = [
            t
            for t in self.import_targets.values()
            if (t.organization_id, t.user_id, t.kind) == (target.organization_id, target.user_id, target.kind)
        ]
        for old in same:
            if old.state == "live":
                old.state = "replaced"
        for old in same[: max(0, len(same) + 1 - keep)]:
            del self.import_targets[old.target_id]
        self.import_targets[target.target_id] = target

    def remove_wallet_accounts(self, org: Organization, account_ids: set[str]) -> None:
        for wallet in org.wallets.values():
            wallet.accounts = [a for a in wallet.accounts if a.account_id not in account_ids]

    def detach_organization(self, org: Organization) -> None:
        """Delete a sub-organization's contents: its credentials stop working, its keys are gone
        and its parent no longer lists it. The record itself stays in ``orgs`` because the deleting
        activity is stored in it after its handler returns."""
        for user in org.users.values():
            self.remove_user_credentials(user)
        if org.parent_id and org.parent_id in self.orgs:
            siblings = self.orgs[org.parent_id].children
            self.orgs[org.parent_id].children = [c for c in siblings if c != org.organization_id]
        contents = ("users", "wallets", "private_keys", "tags", "policies", "invitations", "smart_contract_interfaces")
        for name in (*contents, "oauth2_credentials", "fiat_credentials", "balances", "webhook_endpoints", "longtail"):
            getattr(org, name).clear()
        org.root_user_ids = []
        self.import_targets = {k: t for k, t in self.import_targets.items() if t.organization_id != org.organization_id}

    def webhook_endpoint_urls(self, organization_id: str, event_type: str = ACTIVITY_UPDATES.name) -> list[str]:
        """URLs of the active endpoints subscribed to ``event_type`` in the organization and its
        ancestors (a parent's endpoint hears its sub-organizations' activities)."""
        urls: list[str] = []
        org = self.orgs.get(organization_id)
        while org is not None:
            urls += lookups.subscribed_urls(org.webhook_endpoints, event_type)
            org = self.orgs.get(org.parent_id) if org.parent_id else None
        return urls

    def snapshot(self) -> Store:
        """A copy that shares every immutable part with this store (see state.copying)."""
        made: Store = copy_store(self, list(self.retention.loose))
        made.retention = self.retention.copy(made.activities)
        return made

    def adopt(self) -> None:
        """Index tables a decoded document holds as plain dicts."""
        if not isinstance(self.activities, ActivityTable):
            self.activities = ActivityTable(self.activities)
        self.retention.loose.extend(a for a in self.activities.values() if not a.compact() and not a.final)

    def counts(self) -> dict[str, Any]:
        return {"organizations": len(self.orgs), "activities": len(self.activities)}
