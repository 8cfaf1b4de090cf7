"""Typed records of the long-tail families an organization keeps (``Organization.longtail``: table
name -> record id -> record): swaps, earn, on-ramp, TVC and secrets.

These tables began as plain JSON, and state documents hold each record as that JSON object. The
records keep it exactly (``as_document``: the same keys, in the same order; ``from_document`` reads
it back), so exports are unchanged and older documents import. ``FAMILIES`` names every table; the
accessors (``swaps(org.longtail)``, ...) create a table on first use, as the JSON tables were.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, TypeVar, cast

from simulator.state.status_track import StatusTrack
from simulator.wire import Json


def camel(name: str) -> str:
    """A field's key in its document: ``created_ms`` is ``createdMs``."""
    head, *rest = name.split("_")
    return head + "".join(part.title() for part in rest)


class FieldDocument:
    """A record whose document has one key per field, in field order, named in camelCase."""

    def as_document(self) -> Json:
        return {camel(f.name): getattr(self, f.name) for f in dataclasses.fields(cast(Any, self))}

    @classmethod
    def from_document(cls: type[R], value: Json) -> R:
        made: R = cast(Any, cls)(*(value[camel(f.name)] for f in dataclasses.fields(cast(Any, cls))))
        return made

    @classmethod
    def adopted(cls: type[R], value: Any) -> R:
        """``value`` as a record: read from its document form, or already one."""
        return value if isinstance(value, cls) else cls.from_document(value)


R = TypeVar("R", bound=FieldDocument)


@dataclass
class Secret(FieldDocument):
    """An imported secret (import_secrets); only its metadata is ever read back (list_secrets)."""

    secret_id: str
    name: str
    static_properties: list[Json]  # [{key, value}]
    created_at_unix_ms: str
    plaintext: str  # hex: what export_secrets seals again for its target

    def metadata(self) -> Json:
        """What list_secrets shows: everything but the plaintext, empty strings left out."""
        return {k: v for k, v in self.as_document().items() if k != "plaintext" and v != ""}


@dataclass
class OnrampTransaction(FieldDocument):
    """A fiat on-ramp transaction (init_fiat_on_ramp) and the status it moves along."""

    params: Json  # the request's parameters, as sent
    track: StatusTrack

    def __post_init__(self) -> None:
        self.track = StatusTrack.from_document(self.track)  # a document holds it in its JSON form


@dataclass
class SwapConfig:
    """The parent organization's swap fee configuration (upsert_swap_config); the table's ``config``."""

    fee_receiver_wallet_address: str
    fee_bps: str
    stable_fee_bps: str | None = None  # None: not set (the document leaves it out)

    def as_document(self) -> Json:
        out = {"feeReceiverWalletAddress": self.fee_receiver_wallet_address, "feeBps": self.fee_bps}
        if self.stable_fee_bps is not None:
            out["stableFeeBps"] = self.stable_fee_bps
        return out

    @classmethod
    def from_document(cls, value: Json) -> SwapConfig:
        return cls(value["feeReceiverWalletAddress"], value["feeBps"], value.get("stableFeeBps"))


QUOTE_WIRE = (  # what create_swap_quote answers, in its order
    "quoteId",
    "provider",
    "outputAmount",
    "minOutputAmount",
    "expiresAt",
    "slippageBps",
    "clientFeeBps",
    "estimatedTimeSeconds",
)


@dataclass
class SwapQuote(FieldDocument):
    """A swap quote (create_swap_quote): what it answered, and what it committed to for execute_swap."""

    quote_id: str
    provider: str
    output_amount: str
    min_output_amount: str
    expires_at: str  # ms, as a decimal string
    slippage_bps: str
    client_fee_bps: str
    estimated_time_seconds: str
    sign_with: str
    input_token: str  # CAIP-19
    output_token: str
    input_amount: str
    fee_usd: str  # the client fee's worth, for claim_swap_fees
    used: bool = False

    def wire(self) -> Json:
        """The quote as create_swap_quote answers it."""
        return {k: v for k, v in self.as_document().items() if k in QUOTE_WIRE}


@dataclass
class Swap(FieldDocument):
    """An executed swap (execute_swap): its quote, its kind, its hashes and the status it moves along."""

    quote: SwapQuote
    swap_kind: str  # SAME_CHAIN or CROSS_CHAIN
    origin_tx_hash: str
    destination_tx_hash: str
    track: StatusTrack
    claimed: bool = False  # its client fee was collected by claim_swap_fees

    def __post_init__(self) -> None:  # a document holds both in their JSON form
        self.quote = SwapQuote.adopted(self.quote)
        self.track = StatusTrack.from_document(self.track)


@dataclass
class EarnWrapper(FieldDocument):
    """A fee wrapper over a catalogue vault (earn_deploy_wrapper), kept by the top organization."""

    wrapper_address: str
    splitter_address: str
    deploy_request_id: str
    deploy_organization_id: str
    vault: Json  # the catalogue entry it wraps
    client_fee_bps: int
    client_fee_wallet: str
    deposits_disabled: bool = False
    claimed_fee: int = 0  # client fees claimed so far (base units)


@dataclass
class EarnRequest:
    """A wrapper deployment, deposit, withdrawal or fee claim, and the status it moves along.

    The fields after ``track`` are those of its kind (None: not one of its kind's): ``wrapper_address``
    for a deployment; ``amount`` and ``wrapper`` for the others; ``max`` for a withdrawal."""

    id: str
    kind: str  # deploy, deposit, withdraw or claim
    sign_with: str
    track: StatusTrack
    tx_hash: str = ""
    wrapper_address: str | None = None
    amount: int | None = None
    max: bool | None = None
    wrapper: str | None = None

    def as_document(self) -> Json:
        out: Json = {"id": self.id, "kind": self.kind, "signWith": self.sign_with, "track": self.track}
        for key, value in (
            ("wrapperAddress", self.wrapper_address),
            ("amount", self.amount),
            ("max", self.max),
            ("wrapper", self.wrapper),
        ):
            if value is not None:
                out[key] = value
        out["txHash"] = self.tx_hash
        return out

    @classmethod
    def from_document(cls, value: Json) -> EarnRequest:
        return cls(
            value["id"],
            value["kind"],
            value["signWith"],
            StatusTrack.from_document(value["track"]),
            value["txHash"],
            value.get("wrapperAddress"),
            value.get("amount"),
            value.get("max"),
            value.get("wrapper"),
        )


@dataclass
class TvcOperator(FieldDocument):
    """A Verifiable Cloud operator: its P-256 key (65 bytes, or QuorumOS's 130-byte pair)."""

    id: str
    name: str
    public_key: str
    created_ms: int


@dataclass
class TvcOperatorSet(FieldDocument):
    """An app's manifest or share set: its operators and how many of them must act."""

    id: str
    name: str
    operator_ids: list[str]
    threshold: int
    created_ms: int


@dataclass
class TvcApp(FieldDocument):
    id: str
    name: str
    quorum_public_key: str
    manifest_set_id: str
    share_set_id: str
    enable_egress: bool
    enable_debug_mode_deployments: bool
    live_deployment_id: str | None
    created_ms: int
    updated_ms: int


@dataclass
class TvcDeployment(FieldDocument):
    """A deployment of an app: its manifest, approvals and key shares, and the status its replicas
    move along once the enclave boots (``started_ms``)."""

    id: str
    app_id: str
    manifest_id: str
    manifest: str  # the manifest's JSON text, as operators sign it
    params: Json  # the request's parameters, the pull secret left out
    has_pull_secret: bool
    replicas: int
    approvals: list[Json]  # [{id, operatorId, signature, createdMs}]
    shares: list[Json]  # [{id, operator}]
    provisioning_key: str  # hex P-256 private key of the provisioning enclave
    track: StatusTrack
    started_ms: int | None
    deleted: bool
    created_ms: int
    updated_ms: int

    def __post_init__(self) -> None:
        self.track = StatusTrack.from_document(self.track)  # a document holds it in its JSON form


@dataclass
class TvcQuorumKey(FieldDocument):
    """A quorum key the simulator hosts (create_tvc_quorum_key), one share per operator key."""

    id: str
    public_key: str
    threshold: int
    operators: dict[str, str]  # lower-case operator encryption key -> share id


FAMILIES: dict[str, Any] = {
    "tvcOperators": TvcOperator,
    "tvcOperatorSets": TvcOperatorSet,
    "tvcApps": TvcApp,
    "tvcDeployments": TvcDeployment,
    "tvcQuorumKeys": TvcQuorumKey,
    "earnWrappers": EarnWrapper,
    "earnRequests": EarnRequest,
    "secrets": Secret,
    "onrampTransactions": OnrampTransaction,
    "swapConfig": SwapConfig,
    "swapQuotes": SwapQuote,
    "swaps": Swap,
}
RECORDS = tuple(FAMILIES.values())  # what the state codec writes through ``as_document``


def adopt(tables: dict[str, dict[str, Any]]) -> None:
    """Records a decoded document holds as JSON objects, typed again."""
    for name, records in tables.items():
        family = FAMILIES.get(name)
        for key, record in records.items():
            if family is not None and isinstance(record, dict):
                records[key] = family.from_document(record)


def secrets(tables: dict[str, dict[str, Any]]) -> dict[str, Secret]:
    return cast(dict[str, Secret], tables.setdefault("secrets", {}))


def onramp_transactions(tables: dict[str, dict[str, Any]]) -> dict[str, OnrampTransaction]:
    return cast(dict[str, OnrampTransaction], tables.setdefault("onrampTransactions", {}))


def swap_config(tables: dict[str, dict[str, Any]]) -> dict[str, SwapConfig]:
    """The swap configuration table: one record, ``config``, once upsert_swap_config ran."""
    return cast(dict[str, SwapConfig], tables.setdefault("swapConfig", {}))


def swap_quotes(tables: dict[str, dict[str, Any]]) -> dict[str, SwapQuote]:
    return cast(dict[str, SwapQuote], tables.setdefault("swapQuotes", {}))


def swaps(tables: dict[str, dict[str, Any]]) -> dict[str, Swap]:
    return cast(dict[str, Swap], tables.setdefault("swaps", {}))


def earn_wrappers(tables: dict[str, dict[str, Any]]) -> dict[str, EarnWrapper]:
    """A top organization's Earn wrappers, by lower-case wrapper address."""
    return cast(dict[str, EarnWrapper], tables.setdefault("earnWrappers", {}))


def earn_requests(tables: dict[str, dict[str, Any]]) -> dict[str, EarnRequest]:
    return cast(dict[str, EarnRequest], tables.setdefault("earnRequests", {}))


def tvc_operators(tables: dict[str, dict[str, Any]]) -> dict[str, TvcOperator]:
    return cast(dict[str, TvcOperator], tables.setdefault("tvcOperators", {}))


def tvc_operator_sets(tables: dict[str, dict[str, Any]]) -> dict[str, TvcOperatorSet]:
    return cast(dict[str, TvcOperatorSet], tables.setdefault("tvcOperatorSets", {}))


def tvc_apps(tables: dict[str, dict[str, Any]]) -> dict[str, TvcApp]:
    return cast(dict[str, TvcApp], tables.setdefault("tvcApps", {}))


def tvc_deployments(tables: dict[str, dict[str, Any]]) -> dict[str, TvcDeployment]:
    return cast(dict[str, TvcDeployment], tables.setdefault("tvcDeployments", {}))


def tvc_quorum_keys(tables: dict[str, dict[str, Any]]) -> dict[str, TvcQuorumKey]:
    return cast(dict[str, TvcQuorumKey], tables.setdefault("tvcQuorumKeys", {}))
