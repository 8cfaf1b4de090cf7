"""Plain records of the simulator's state; each knows its wire shape (``to_api``)."""

from __future__ import annotations

from dataclasses import dataclass, field

from simulator.state.status_track import StatusTrack
from simulator.wire import Json


def timestamp(ms: int) -> Json:
    """The service's timestamp object; both members are strings (the Python client insists)."""
    return {"seconds": str(ms // 1000), "nanos": str((ms % 1000) * 1_000_000)}


def created_updated(created_ms: int, updated_ms: int = 0) -> Json:
    """``createdAt`` and ``updatedAt``, in that order: a record never updated (0) shows its creation twice."""
    return {"createdAt": timestamp(created_ms), "updatedAt": timestamp(updated_ms or created_ms)}


@dataclass
class ApiKey:
    api_key_id: str
    name: str
    public_key: str  # hex as the stamp carries it (compressed for EC keys)
    credential_type: str  # CREDENTIAL_TYPE_API_KEY_P256, ..._SECP256K1, ..._ED25519, session types
    created_ms: int
    expiration_seconds: int | None = None
    session_profile_id: str | None = None  # a login session made under a session profile

    def expires_at_ms(self) -> int | None:
        if self.expiration_seconds is None:
            return None
        return self.created_ms + self.expiration_seconds * 1000

    def to_api(self) -> Json:
        credential = {"publicKey": self.public_key, "type": self.credential_type}
        if self.session_profile_id is not None:
            credential["sessionProfileId"] = self.session_profile_id
        out: Json = {
            "credential": credential,
            "apiKeyId": self.api_key_id,
            "apiKeyName": self.name,
            **created_updated(self.created_ms),
        }
        if self.expiration_seconds is not None:
            out["expirationSeconds"] = str(self.expiration_seconds)
        return out


@dataclass
class Authenticator:
    authenticator_id: str
    name: str
    credential_id: str  # base64url, as WebAuthn stamps name it
    public_key: bytes  # uncompressed P-256 point (65 bytes), the key stamps are checked against
    cose_public_key: str  # base64url COSE_Key, as the service shows it
    created_ms: int
    transports: list[str] = field(default_factory=lambda: ["AUTHENTICATOR_TRANSPORT_INTERNAL"])
    attestation_type: str = "none"
    aaguid: str = "00000000-0000-0000-0000-000000000000"
    model: str = "Simulated passkey"

    def to_api(self) -> Json:
        return {
            "transports": list(self.transports),
            "attestationType": self.attestation_type,
            "aaguid": self.aaguid,
            "credentialId": self.credential_id,
            "model": self.model,
            "credential": {
                "publicKey": self.cose_public_key,
                "type": "CREDENTIAL_TYPE_WEBAUTHN_AUTHENTICATOR",
            },
            "authenticatorId": self.authenticator_id,
            "authenticatorName": self.name,
            **created_updated(self.created_ms),
        }


@dataclass
class MfaPolicy:
    """A user's MFA policy: the first (by ``order``) whose condition holds names the steps an activity needs."""

    mfa_policy_id: str
    name: str
    condition: str
    required_methods: list[Json]  # [{"any": [{"type": ..., "id"?: ...}]}], one entry per step
    order: int
    created_ms: int
    notes: str = ""
    updated_ms: int = 0

    def to_api(self) -> Json:
        return {
            "mfaPolicyId": self.mfa_policy_id,
            "mfaPolicyName": self.name,
            "condition": self.condition,
            "requiredAuthenticationMethods": [dict(step) for step in self.required_methods],
            "order": str(self.order),  # int64: a decimal string on the wire
            "notes": self.notes,
            **created_updated(self.created_ms, self.updated_ms),
        }


@dataclass
class User:
    user_id: str
    name: str
    created_ms: int
    email: str | None = None
    phone_number: str | None = None
    api_keys: dict[str, ApiKey] = field(default_factory=dict)
    authenticators: dict[str, Authenticator] = field(default_factory=dict)
    tag_ids: list[str] = field(default_factory=list)
    oauth_providers: list[Json] = field(default_factory=list)
    updated_ms: int = 0
    email_verified: bool = False  # set when a verification token for the address is consumed; not on the wire
    phone_verified: bool = False
    mfa_policies: dict[str, MfaPolicy] = field(default_factory=dict)

    def to_api(self) -> Json:
        out: Json = {
            "userId": self.user_id,
            "userName": self.name,
            "authenticators": [a.to_api() for a in self.authenticators.values()],
            "apiKeys": [k.to_api() for k in self.api_keys.values()],
            "userTags": list(self.tag_ids),
            "oauthProviders": list(self.oauth_providers),
            **created_updated(self.created_ms, self.updated_ms),
            "mfaPolicies": [p.to_api() for p in self.mfa_policies.values()],
        }
        if self.email is not None:
            out["userEmail"] = self.email
        if self.phone_number is not None:
            out["userPhoneNumber"] = self.phone_number
        return out


@dataclass
class Tag:
    tag_id: str
    name: str
    tag_type: str  # TAG_TYPE_USER or TAG_TYPE_PRIVATE_KEY
    created_ms: int
    updated_ms: int = 0

    def to_api(self) -> Json:
        return {
            "tagId": self.tag_id,
            "tagName": self.name,
            "tagType": self.tag_type,
            **created_updated(self.created_ms, self.updated_ms),
        }


@dataclass
class WalletAccount:
    account_id: str
    organization_id: str
    wallet_id: str
    curve: str
    path: str
    address_format: str
    address: str
    public_key: str
    created_ms: int
    name: str | None = None
    path_format: str = "PATH_FORMAT_BIP32"
    exported: bool = False  # export_wallet_account ran; not on the wire (v1WalletAccount has no such field)

    def to_api(self) -> Json:
        out: Json = {
            "walletAccountId": self.account_id,
            "organizationId": self.organization_id,
            "walletId": self.wallet_id,
            "curve": self.curve,
            "pathFormat": self.path_format,
            "path": self.path,
            "addressFormat": self.address_format,
            "address": self.address,
            **created_updated(self.created_ms),
            "publicKey": self.public_key,
        }
        if self.name is not None:
            out["name"] = self.name
        return out


@dataclass
class Wallet:
    wallet_id: str
    name: str
    mnemonic: str
    created_ms: int
    seed: bytes = b""  # BIP-39 seed of the mnemonic, kept to derive accounts and sign
    accounts: list[WalletAccount] = field(default_factory=list)
    exported: bool = False
    imported: bool = False

    def to_api(self) -> Json:
        return {
            "walletId": self.wallet_id,
            "walletName": self.name,
            **created_updated(self.created_ms),
            "exported": self.exported,
            "imported": self.imported,
        }


@dataclass
class PrivateKey:
    private_key_id: str
    name: str
    curve: str
    secret: bytes
    public_key: str
    addresses: list[Json]
    created_ms: int
    tag_ids: list[str] = field(default_factory=list)
    exported: bool = False
    imported: bool = False

    def to_api(self) -> Json:
        return {
            "privateKeyId": self.private_key_id,
            "publicKey": self.public_key,
            "privateKeyName": self.name,
            "curve": self.curve,
            "addresses": [dict(a) for a in self.addresses],
            "privateKeyTags": list(self.tag_ids),
            **created_updated(self.created_ms),
            "exported": self.exported,
            "imported": self.imported,
        }


@dataclass
class Policy:
    policy_id: str
    name: str
    effect: str
    created_ms: int
    notes: str = ""
    condition: str = ""
    consensus: str = ""
    updated_ms: int = 0
    time: str = ""  # the time-based field (time-based-policies.mdx); "" is always active

    def to_api(self) -> Json:
        shown = {
            "policyId": self.policy_id,
            "policyName": self.name,
            "effect": self.effect,
            **created_updated(self.created_ms, self.updated_ms),
            "notes": self.notes,
            "consensus": self.consensus,
            "condition": self.condition,
        }
        if self.time:
            shown["time"] = self.time
        return shown


@dataclass
class Record:
    """A stored resource whose wire shape is its fields plus timestamps (credentials, invitations...)."""

    record_id: str
    fields: Json
    created_ms: int
    updated_ms: int = 0

    def to_api(self) -> Json:
        return {
            **self.fields,
            **created_updated(self.created_ms, self.updated_ms),
        }


@dataclass
class SessionProfile:
    """Immutable once made: a scope (policy language) and an optional expiry for the login sessions made under it."""

    session_profile_id: str
    name: str
    scope: str
    created_ms: int
    expiration_seconds: int | None = None
    notes: str = ""

    def to_api(self) -> Json:
        out: Json = {
            "sessionProfileId": self.session_profile_id,
            "sessionProfileName": self.name,
            "scope": self.scope,
            "notes": self.notes,
            **created_updated(self.created_ms),
        }
        if self.expiration_seconds is not None:
            out["expirationSeconds"] = str(self.expiration_seconds)
        return out


@dataclass
class Otp:
    """A one-time code sent to a contact; it lives in the organization that initiated it."""

    otp_id: str
    organization_id: str
    otp_type: str  # OTP_TYPE_EMAIL or OTP_TYPE_SMS
    contact: str
    code: str
    created_ms: int
    expires_ms: int
    attempts: int = 0
    used: bool = False
    target_key: str | None = None  # V3: private key (hex) the client encrypts the code to
    user_identifier: str | None = None  # init_otp's userIdentifier: the per-identifier limit counts by it


@dataclass
class ImportTarget:
    """init_import_*'s target encryption key, scoped to one user and kind (wallet or private key).

    The enclave keeps the private half until the import opens with it (one use), a newer init for
    the same user and kind replaces it, or it expires."""

    target_id: str
    organization_id: str
    user_id: str
    kind: str  # "wallet" or "private_key"
    private_key: str  # hex P-256 scalar
    created_ms: int
    expires_ms: int
    state: str = "live"  # live, replaced (by a newer init) or used (by an import)


@dataclass
class WebhookEndpoint:
    """A Webhooks V2 endpoint of one organization, with its event subscriptions."""

    endpoint_id: str
    organization_id: str
    url: str
    name: str
    created_ms: int
    is_active: bool = True
    subscriptions: list[Json] = field(default_factory=list)  # [{"eventType", "filtersJson"?, "isActive"}]
    updated_ms: int = 0

    def subscribed(self, event_type: str) -> bool:
        """Whether deliveries of ``event_type`` go here now (the endpoint and its subscription active)."""
        return self.is_active and any(s["eventType"] == event_type and s["isActive"] for s in self.subscriptions)

    def to_api(self) -> Json:
        return {
            "endpointId": self.endpoint_id,
            "organizationId": self.organization_id,
            "url": self.url,
            "name": self.name,
            "isActive": self.is_active,
            "subscriptions": [dict(s) for s in self.subscriptions],
        }


@dataclass
class IpAllowlist:
    """An organization's IP allow-list (``public_key`` None) or one API key's."""

    organization_id: str
    public_key: str | None
    rules: list[Json]  # [{"cidr", "label", "createdAt"}], normalised networks, first label kept
    enabled: bool | None  # meaningful on the organization's list only
    on_evaluation_error: str = "DENY"

    def to_api(self) -> Json:
        out: Json = {
            "organizationId": self.organization_id,
            "rules": [dict(r) for r in self.rules],
            "onEvaluationError": self.on_evaluation_error,
        }
        if self.public_key is not None:
            out["publicKey"] = self.public_key
        if self.enabled is not None:
            out["enabled"] = self.enabled
        return out


@dataclass
class SentTransaction:
    """A transaction the broadcast stand-in took (eth_send_*, sol_send_transaction, eth_undelegate_7702).

    ``track`` is the status sequence it follows on the simulator clock and with polls;
    ``details`` keeps what the request asked for (calls, gas fields, sponsorship) as sent."""

    status_id: str
    organization_id: str
    activity_type: str
    caip2: str
    sender: str  # the EVM ``from`` or the Solana fee payer
    chain_id: str  # EVM 0x-hash of the signed bytes, or the Solana signature (base58)
    submitted_ms: int
    track: StatusTrack
    signed: str = ""  # hex of the signed transaction; empty when the stand-in could not build it (sponsored)
    nonce: int | None = None
    to: str = ""
    value: int = 0
    fee: int = 0  # wei or lamports
    sponsored: bool = False
    fingerprint: str = ""
    signers: list[Json] = field(default_factory=list)  # Solana: [{address, writable}]
    transfers: list[Json] = field(default_factory=list)  # native transfers: [{from, to, amount}]
    details: Json = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.track = StatusTrack.from_document(self.track)  # a decoded document holds it in its JSON form
