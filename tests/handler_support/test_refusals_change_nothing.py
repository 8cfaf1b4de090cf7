"""A refused request changes nothing: every kind of refusal, through HTTP, leaves the state export
(records, the seeded source, the mnemonic stream, the clock) as it was, and the wallets and ids
made after it are those a run without the refusal makes.

The one record a refusal keeps is a policy denial's activity (readable with ``get_activity`` and
``get_policy_evaluations``); its ids come from a source of its own, so even then the run's source
does not move. A scripted rule counts the requests it matches, refused or not (its ``times`` and
``occurrence`` read that count).
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest
from conftest import ETH_ACCOUNT, ok, result_of
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat
from support import assert_error, sub_org

from simulator.testing import ApiKeyStamper, SimulatorClient

pytestmark = pytest.mark.simulator_scenario("../scenarios/refusals.yaml")
ORG = "5f1c0c5e-0000-4000-8000-00000000a001"
FROZEN_MS = 1_760_000_000_000
UNKNOWN_UUID = "00000000-0000-4000-8000-000000000000"


def new_key() -> tuple[str, str]:
    """A P-256 key pair made here (not from the simulator's source): compressed public, private hex."""
    key = ec.generate_private_key(ec.SECP256R1())
    public = key.public_key().public_bytes(Encoding.X962, PublicFormat.CompressedPoint).hex()
    return public, f"{key.private_numbers().private_value:064x}"


@dataclass
class Env:
    simulator: Any
    root: SimulatorClient
    user: Callable[[str], SimulatorClient]
    kept: dict[str, Any]  # what a case's setup made for its refusal

    def submit(self, who: str, op: str, kind: str, params: dict[str, Any]) -> Any:
        client = self.root if who == "root" else self.user(who)
        return client.submit(op, kind, params, timestampMs=unique_timestamp())


_serial = iter(range(10**9))


def unique_timestamp() -> str:
    return str(int(time.time() * 1000) + next(_serial) % 1000)


@pytest.fixture
def env(simulator, simulator_client, simulator_user) -> Any:
    clock = simulator.simulator.clock
    clock.freeze(FROZEN_MS)
    try:
        yield Env(simulator, simulator_client, simulator_user, {})
    finally:
        clock.unfreeze()


# --- the refusals ------------------------------------------------------------------------------------


def wallet_params(name: str, accounts: list[Any] | None = None) -> dict[str, Any]:
    return {"walletName": name, "accounts": [ETH_ACCOUNT] if accounts is None else accounts}


def three_otps(env: Env) -> None:
    for n in range(3):
        params = {"otpType": "OTP_TYPE_EMAIL", "contact": f"u{n}@example.com", "appName": "Demo"}
        result_of(
            env.submit("root", "init_otp", "ACTIVITY_TYPE_INIT_OTP_V2", {**params, "userIdentifier": "ip"}),
            "initOtpResult",
        )


def fourth_otp(env: Env) -> Any:
    params = {"otpType": "OTP_TYPE_EMAIL", "contact": "u3@example.com", "appName": "Demo", "userIdentifier": "ip"}
    return env.submit("root", "init_otp", "ACTIVITY_TYPE_INIT_OTP_V2", params)


def proxy_otp(env: Env, contact: str) -> Any:
    proxy = SimulatorClient(env.simulator.proxy_url, None, "")
    body = {"otpType": "OTP_TYPE_EMAIL", "contact": contact, "userIdentifier": "ip-proxy"}
    headers = {"X-Auth-Proxy-Config-Id": "proxy-config-1", "Origin": "http://localhost:3000"}
    return proxy.post("/v1/otp_init", json.dumps(body).encode(), headers)


def three_proxy_otps(env: Env) -> None:
    for n in range(3):
        ok(proxy_otp(env, f"p{n}@example.com"))


def full_sub_org(env: Env) -> None:
    public, private = new_key()
    child_id, _ = sub_org(
        env.root, apiKeys=[{"apiKeyName": "root", "publicKey": public, "curveType": "API_KEY_CURVE_P256"}]
    )
    child = SimulatorClient(env.simulator.url, ApiKeyStamper(private), child_id)
    for n in range(10):
        ok(child.submit("create_user_tag", "ACTIVITY_TYPE_CREATE_USER_TAG", {"userTagName": f"t{n}", "userIds": []}))
    env.kept["child"] = child


def eleventh_tag(env: Env) -> Any:
    params = {"userTagName": "t10", "userIds": []}
    return env.kept["child"].submit("create_user_tag", "ACTIVITY_TYPE_CREATE_USER_TAG", params)


def eleven_api_keys(env: Env) -> Any:
    keys = [{"apiKeyName": f"k{n}", "publicKey": new_key()[0], "curveType": "API_KEY_CURVE_P256"} for n in range(11)]
    params = {"userId": "5f1c0c5e-0000-4000-8000-00000000b001", "apiKeys": keys}
    return env.submit("root", "create_api_keys", "ACTIVITY_TYPE_CREATE_API_KEYS_V2", params)


def unknown_key(env: Env) -> Any:
    client = SimulatorClient(env.simulator.url, ApiKeyStamper(new_key()[1]), ORG)
    return client.submit("create_wallet", "ACTIVITY_TYPE_CREATE_WALLET", wallet_params("stranger"))


def malformed_org(env: Env) -> Any:
    client = SimulatorClient(env.simulator.url, env.root.stamper, "not-a-uuid")
    return client.submit("create_wallet", "ACTIVITY_TYPE_CREATE_WALLET", wallet_params("nowhere"))


def pending_wallet(env: Env) -> None:
    params = wallet_params("needs-approval")
    waiting = ok(env.submit("root", "create_wallet", "ACTIVITY_TYPE_CREATE_WALLET", params))["activity"]
    env.kept["fingerprint"] = waiting["fingerprint"]


def vote_by_a_stranger(env: Env) -> Any:
    params = {"fingerprint": env.kept["fingerprint"]}
    return env.submit("Eve", "approve_activity", "ACTIVITY_TYPE_APPROVE_ACTIVITY", params)


@dataclass(frozen=True)
class Refusal:
    name: str
    send: Callable[[Env], Any]
    status: int
    code: int
    setup: Callable[[Env], None] | None = None
    kept: bool = False  # a policy denial keeps the denied activity as a record
    scripted: bool = False  # a scripted rule counts the requests it matches


REFUSALS = [
    Refusal(
        "schema",
        lambda e: e.submit("root", "create_wallet", "ACTIVITY_TYPE_CREATE_WALLET", {"walletName": "no accounts"}),
        400,
        3,
    ),
    Refusal("unknown stamp", unknown_key, 401, 16),
    Refusal("malformed organization id", malformed_org, 400, 3),
    Refusal(
        "implicit policy deny of a wallet",
        lambda e: e.submit("Eve", "create_wallet", "ACTIVITY_TYPE_CREATE_WALLET", wallet_params("eve's")),
        403,
        7,
        kept=True,
    ),
    Refusal(
        "explicit policy deny",
        lambda e: e.submit("Eve", "delete_policies", "ACTIVITY_TYPE_DELETE_POLICIES", {"policyIds": []}),
        403,
        7,
        kept=True,
    ),
    Refusal(
        "scripted deny of a wallet",
        lambda e: e.submit("root", "create_wallet", "ACTIVITY_TYPE_CREATE_WALLET", wallet_params("scripted-deny")),
        403,
        7,
        kept=True,
        scripted=True,
    ),
    Refusal(
        "a wallet refused by its handler after drawing ids",
        lambda e: e.submit(
            "root", "create_wallet", "ACTIVITY_TYPE_CREATE_WALLET", wallet_params("twice", [ETH_ACCOUNT, ETH_ACCOUNT])
        ),
        400,
        3,
    ),
    Refusal("api key limit", eleven_api_keys, 429, 8),
    Refusal(
        "unknown wallet",
        lambda e: e.submit(
            "root",
            "create_wallet_accounts",
            "ACTIVITY_TYPE_CREATE_WALLET_ACCOUNTS",
            {"walletId": UNKNOWN_UUID, "accounts": [ETH_ACCOUNT]},
        ),
        404,
        5,
    ),
    Refusal("otp limit per identifier", fourth_otp, 400, 3, setup=three_otps),
    Refusal(
        "otp limit through the auth proxy", lambda e: proxy_otp(e, "p3@example.com"), 400, 3, setup=three_proxy_otps
    ),
    Refusal("sub-organization tag limit", eleventh_tag, 429, 8, setup=full_sub_org),
    Refusal("a vote by someone not among the approvers", vote_by_a_stranger, 403, 7, setup=pending_wallet),
]


def export(simulator: Any) -> dict[str, Any]:
    document: dict[str, Any] = json.loads(json.dumps(simulator.simulator.export_state()))
    return document


def forget(document: dict[str, Any], activity_id: str) -> None:
    """The state without a denied activity's kept record and evaluation."""
    store = document["store"]
    del store["activities"][activity_id]
    del store["evaluations"][activity_id]
    for org in store["orgs"].values():
        ids = org["activities"]["__activity_ids__"]
        if activity_id in ids:
            ids.remove(activity_id)


def denied_activity_id(body: dict[str, Any]) -> str:
    return next(str(d["activityId"]) for d in body["details"] if "activityId" in d)


@pytest.mark.parametrize("refusal", REFUSALS, ids=lambda r: r.name)
def test_a_refusal_leaves_the_state_export_as_it_was(refusal, env, simulator_control):
    if refusal.setup:
        refusal.setup(env)
    before = export(env.simulator)
    body = assert_error(refusal.send(env), refusal.status, refusal.code)
    after = export(env.simulator)
    if refusal.kept:
        denied = denied_activity_id(body)
        record = ok(env.root.query("get_activity", activityId=denied))["activity"]
        assert record["status"] == "ACTIVITY_STATUS_FAILED"  # still readable
        forget(after, denied)
    if refusal.scripted:
        assert (
            after["store"]["rule_hits"].pop("scripted denial")
            == before["store"]["rule_hits"].pop("scripted denial", 0) + 1
        )
    assert after == before  # the seeded source and the mnemonic stream included


def next_records(env: Env) -> dict[str, Any]:
    """What the next requests make: an activity, a wallet with its mnemonic and addresses, a tag."""
    made = ok(env.submit("root", "create_wallet", "ACTIVITY_TYPE_CREATE_WALLET", wallet_params("after")))["activity"]
    result = made["result"][
        "createWalletResultV2" if "createWalletResultV2" in made["result"] else "createWalletResult"
    ]
    wallet = env.simulator.simulator.store.orgs[ORG].wallets[result["walletId"]]
    tag = result_of(
        env.submit("root", "create_user_tag", "ACTIVITY_TYPE_CREATE_USER_TAG", {"userTagName": "after", "userIds": []}),
        "createUserTagResult",
    )
    return {"activity": made["id"], **result, "mnemonic": wallet.mnemonic, "tag": tag["userTagId"]}


@pytest.mark.parametrize("refusal", REFUSALS, ids=lambda r: r.name)
def test_what_comes_after_a_refusal_is_what_comes_without_it(refusal, env, simulator_control):
    if refusal.setup:
        refusal.setup(env)
    assert_error(refusal.send(env), refusal.status, refusal.code)
    with_refusal = next_records(env)
    simulator_control.reset()
    env.simulator.simulator.clock.freeze(FROZEN_MS)
    if refusal.setup:
        refusal.setup(env)
    assert next_records(env) == with_refusal


# --- activities that wait: a rejected or a later-approved wallet --------------------------------------------


def needs_approval(env: Env) -> dict[str, Any]:
    params = wallet_params("needs-approval")
    waiting = ok(env.submit("root", "create_wallet", "ACTIVITY_TYPE_CREATE_WALLET", params))["activity"]
    assert waiting["status"] == "ACTIVITY_STATUS_CONSENSUS_NEEDED"
    return waiting  # type: ignore[no-any-return]


def vote(env: Env, kind: str, fingerprint: str) -> dict[str, Any]:
    op = "approve_activity" if kind == "approve" else "reject_activity"
    answer = env.submit("Bob", op, f"ACTIVITY_TYPE_{kind.upper()}_ACTIVITY", {"fingerprint": fingerprint})
    return ok(answer)["activity"]  # type: ignore[no-any-return]


def mnemonics(env: Env) -> list[str]:
    return [w.mnemonic for w in env.simulator.simulator.store.orgs[ORG].wallets.values()]


def test_a_rejected_wallet_leaves_the_mnemonic_stream(env, simulator_control):
    stream = export(env.simulator)["store"]["mnemonic_stream"]
    waiting = needs_approval(env)
    assert vote(env, "reject", waiting["fingerprint"])["status"] == "ACTIVITY_STATUS_REJECTED"
    assert export(env.simulator)["store"]["mnemonic_stream"] == stream
    ok(env.submit("root", "create_wallet", "ACTIVITY_TYPE_CREATE_WALLET", wallet_params("after")))
    after_rejection = mnemonics(env)
    simulator_control.reset()
    ok(env.submit("root", "create_wallet", "ACTIVITY_TYPE_CREATE_WALLET", wallet_params("after")))
    assert mnemonics(env) == after_rejection  # the first wallet of a run without it


def test_wallets_get_the_streams_mnemonics_in_the_order_they_are_stored(env, simulator_control):
    """A wallet approved after another was made gets the next mnemonic, not the one its request peeked at."""
    waiting = needs_approval(env)
    ok(env.submit("root", "create_wallet", "ACTIVITY_TYPE_CREATE_WALLET", wallet_params("first")))
    assert vote(env, "approve", waiting["fingerprint"])["status"] == "ACTIVITY_STATUS_COMPLETED"
    in_order = mnemonics(env)
    simulator_control.reset()
    ok(env.submit("root", "create_wallet", "ACTIVITY_TYPE_CREATE_WALLET", wallet_params("first")))
    ok(env.submit("root", "create_wallet", "ACTIVITY_TYPE_CREATE_WALLET", wallet_params("second")))
    assert mnemonics(env) == in_order and len(set(in_order)) == 2


def test_a_handler_refused_after_approval_puts_back_what_it_drew(env, simulator_control):
    """Approved, then refused by its handler (a path used twice): the activity FAILS, and what follows
    is what follows a rejection of the same request, whose vote draws the same ids."""

    def after(kind: str) -> dict[str, Any]:
        params = wallet_params("needs-approval", [ETH_ACCOUNT, ETH_ACCOUNT])
        waiting = ok(env.submit("root", "create_wallet", "ACTIVITY_TYPE_CREATE_WALLET", params))["activity"]
        voted = vote(env, kind, waiting["fingerprint"])
        assert voted["status"] == ("ACTIVITY_STATUS_FAILED" if kind == "approve" else "ACTIVITY_STATUS_REJECTED")
        return next_records(env)

    failed = after("approve")
    simulator_control.reset()
    env.simulator.simulator.clock.freeze(FROZEN_MS)
    assert after("reject") == failed
