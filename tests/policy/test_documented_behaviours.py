"""The policy engine's documented behaviours, through the API a user calls (in process, over the real app).

Each test names the page that documents the behaviour:
https://docs.turnkey.com/features/policies/language (no short circuit, activity parameters, single
quotes, keywords per field, time expressions), .../time-based-policies (the time field, its early-access
flag and window), .../overview (implicit permissions an explicit deny overrides),
.../examples/ethereum (ABI tuples read by position).
"""

from __future__ import annotations

import json
import logging
import subprocess
import sys
import textwrap
import warnings
from pathlib import Path
from typing import Any

import pytest
from conftest import ok
from support import POLICY_DENY_DAVE, assert_error, create_policy

from simulator.chains.eth_calls import decode_call
from simulator.config import Config
from simulator.core import Simulator
from simulator.policy.language import compile_expression
from simulator.scenario import ScenarioWarning, resolve_scenario
from simulator.testing import ApiKeyStamper, InProcessClient
from simulator.web.app import create_app

DAVE = POLICY_DENY_DAVE
ROOT_KEY = "b02b91437e30e7c99682f43dfef819be237b9afba4d7131ac9f087daebb34992"
DAVE_KEY = "da4e000000000000000000000000000000000000000000000000000000000001"
ORG = "5f1c0c5e-0000-4000-8000-00000000a001"


class Org:
    """The policy_deny scenario (or a file like it) in process: Root User, and Dave governed by policies."""

    def __init__(self, scenario: Path | None = None) -> None:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ScenarioWarning)
            self.sim = Simulator(Config(scenarios=(scenario or resolve_scenario("policy_deny"),), inspector=True))
        self.app = app = create_app(self.sim)
        self.root = InProcessClient(app, ApiKeyStamper(ROOT_KEY), ORG)
        self.dave = InProcessClient(app, ApiKeyStamper(DAVE_KEY), ORG)

    def policy(self, name: str, condition: str, consensus: str = "", effect: str = "EFFECT_ALLOW", **more: Any) -> str:
        body = {"policyName": name, "effect": effect, "condition": condition, "consensus": consensus, "notes": ""}
        made = ok(self.root.submit("create_policy", "ACTIVITY_TYPE_CREATE_POLICY_V3", {**body, **more}))
        return str(made["activity"]["result"]["createPolicyResult"]["policyId"])

    def private_key(self) -> tuple[str, str]:
        spec = {"privateKeyName": "k", "curve": "CURVE_SECP256K1", "addressFormats": ["ADDRESS_FORMAT_ETHEREUM"]}
        made = ok(
            self.root.submit(
                "create_private_keys",
                "ACTIVITY_TYPE_CREATE_PRIVATE_KEYS_V2",
                {"privateKeys": [{**spec, "privateKeyTags": []}]},
            )
        )
        key = made["activity"]["result"]["createPrivateKeysResultV2"]["privateKeys"][0]
        return key["privateKeyId"], key["addresses"][0]["address"]

    def denied(self, response: Any) -> dict[str, Any]:
        body = assert_error(response, 403, 7)
        detail = next(d for d in body["details"] if "activityId" in d)
        return self.sim.explain(detail["activityId"])


def sign_raw(client: Any, sign_with: str) -> Any:
    params = {
        "signWith": sign_with,
        "payload": "00" * 32,
        "encoding": "PAYLOAD_ENCODING_HEXADECIMAL",
        "hashFunction": "HASH_FUNCTION_NO_OP",
    }
    return client.submit("sign_raw_payload", "ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2", params)


# -- 1. no short circuit (language.mdx, "Policy evaluation") -------------------------------------------------


def test_the_wallet_or_private_key_condition_always_errors_and_explain_names_the_clause() -> None:
    org = Org()
    key_id, _ = org.private_key()
    policy_id = org.policy(
        "either", f"wallet.id == 'w-1' || private_key.id == '{key_id}'", f"approvers.any(u, u.id == '{DAVE}')"
    )
    why = org.denied(sign_raw(org.dave, key_id))  # the private key clause matches; the wallet one errors
    [considered] = [p for p in why["policies"] if p["policyId"] == policy_id]
    assert considered["outcome"] == "OUTCOME_ERROR"
    assert considered["clause"] == "condition: wallet.id == 'w-1'"
    assert "MissingField" in considered["reason"] and "wallet" in considered["reason"]
    others = {p["policyName"]: p["outcome"] for p in why["policies"]}
    assert others["traders create wallets"] == "NOT_APPLICABLE"
    stored = ok(org.dave.query("get_policy_evaluations", activityId=why["activityId"]))["policyEvaluations"]
    assert {"policyId": policy_id, "outcome": "OUTCOME_ERROR"} in stored[0]["policyEvaluations"]
    with org.app.test_client().get(f"/_simulator/ui/api/activities/{why['activityId']}") as response:
        story = response.get_json()  # the inspector's activity page reads this
    assert considered in story["explanation"]["policies"]


def test_an_error_in_a_predicate_item_is_not_skipped() -> None:
    context = {"activity": {"type": "X"}, "eth": {"tx": {"to": "a", "contract_call_args": {"xs": [1, "b"]}}}}
    verdict = compile_expression("eth.tx.contract_call_args['xs'].any(x, x < 5)").check(context)
    assert verdict.errored  # 1 < 5 already holds; 'b' < 5 is a type error, and it is evaluated


# -- 3. ABI tuples by position (examples/ethereum.mdx, "Iterating over contract call arguments") -------------

BATCH_ABI = json.dumps(
    [
        {
            "name": "executeBatch",
            "type": "function",
            "inputs": [
                {
                    "name": "calls",
                    "type": "tuple[]",
                    "components": [
                        {"name": "target", "type": "address"},
                        {"name": "value", "type": "uint256"},
                        {"name": "data", "type": "bytes"},
                    ],
                }
            ],
        }
    ]
)
TARGET = "0x" + "ab" * 20


def batch_view(*values: int) -> dict[str, Any]:
    from eth_abi import encode

    from simulator.crypto.hashing import keccak256

    calldata = keccak256(b"executeBatch((address,uint256,bytes)[])")[:4] + encode(
        ["(address,uint256,bytes)[]"], [[(TARGET, v, b"") for v in values]]
    )
    return {"activity": {"type": "ACTIVITY_TYPE_SIGN_TRANSACTION_V2"}, "eth": {"tx": decode_call(calldata, BATCH_ABI)}}


def test_the_documented_batch_whitelist_reads_tuples_by_position() -> None:
    condition = (
        "eth.tx.function_name == 'executeBatch' && "
        f"eth.tx.contract_call_args['calls'].all(call, call[0] == '{TARGET}' && call[1] == 0)"
    )
    assert compile_expression(condition).check(batch_view(0, 0)).matched
    assert not compile_expression(condition).check(batch_view(0, 1)).matched


def test_named_access_into_a_tuple_is_the_documented_error() -> None:
    verdict = compile_expression(f"eth.tx.contract_call_args['calls'].all(c, c['target'] == '{TARGET}')").check(
        batch_view(0)
    )
    assert verdict.errored and "read by position" in str(verdict.error)


# -- 4. single quotes (language.mdx, "Primitive") and 5. keywords per field (language.mdx, "Keywords") -------


@pytest.mark.parametrize(
    ("condition", "consensus", "fragments"),
    [
        ('activity.type == "ACTIVITY_TYPE_CREATE_WALLET"', "", ["invalid policy condition", "double-quoted"]),
        ("approvers.count() >= 1", "", ["invalid policy condition", "'approvers' is a keyword of the consensus field"]),
        ("credentials.count() >= 1", "", ["'credentials' is a keyword of the consensus field"]),
        ("true", "activity.type == 'ACTIVITY_TYPE_CREATE_WALLET'", ["invalid policy consensus", "'activity'"]),
        ("true", "eth.tx.value > 0", ["invalid policy consensus", "'eth' is a keyword of the condition field"]),
        ("time.now > Timestamp('2025-01-01T00:00:00Z')", "", ["'time' is a keyword of the time field"]),
    ],
)
def test_create_and_update_policy_refuse_what_the_service_refuses(
    condition: str, consensus: str, fragments: list[str]
) -> None:
    org = Org()
    before = ok(org.root.query("list_policies"))["policies"]
    assert_error(create_policy(org.root, "p", condition, consensus), 400, 3, *fragments)
    assert ok(org.root.query("list_policies"))["policies"] == before
    policy_id = org.policy("fine", "true")
    field = "policyConsensus" if consensus else "policyCondition"
    update = {"policyId": policy_id, field: consensus or condition}
    assert_error(org.root.submit("update_policy", "ACTIVITY_TYPE_UPDATE_POLICY_V2", update), 400, 3, *fragments)


def scenario(tmp_path: Path, policies: str, features: str = "") -> Path:
    path = tmp_path / "policies.yaml"
    path.write_text(
        textwrap.dedent(
            f"""\
            version: 1
            organizations:
              - id: {ORG}
                name: Org
                users:
                  - {{name: Root User, apiKeys: [{{name: k, privateKey: "{ROOT_KEY}"}}]}}
                  - {{name: Dave, id: {DAVE}, apiKeys: [{{name: d, privateKey: "{DAVE_KEY}"}}]}}
            """
        )
        + (f"    features: [{features}]\n" if features else "")
        + "    policies:\n"
        + textwrap.indent(textwrap.dedent(policies), "      ")
    )
    return path


def test_a_scenario_file_with_double_quotes_or_a_misplaced_keyword_still_loads_with_warnings(tmp_path: Path) -> None:
    path = scenario(
        tmp_path,
        """\
        - name: old
          effect: EFFECT_ALLOW
          condition: 'activity.resource == "WALLET" && approvers.count() >= 1'
        """,
    )
    with pytest.warns(ScenarioWarning) as caught:
        sim = Simulator(Config(scenarios=(path,)))
    messages = " ".join(str(w.message) for w in caught)
    assert "double-quoted" in messages and "'approvers' is a keyword of the consensus field" in messages
    [policy] = next(o for o in sim.store.orgs.values() if o.name == "Org").policies.values()
    assert policy.condition.startswith("activity.resource")


# -- 6. time-based policies (time-based-policies.mdx) ---------------------------------------------------------


def test_a_time_field_is_refused_without_the_early_access_feature() -> None:
    org = Org()
    refused = org.root.submit(
        "create_policy",
        "ACTIVITY_TYPE_CREATE_POLICY_V3",
        {"policyName": "t", "effect": "EFFECT_ALLOW", "notes": "", "condition": "true", "time": "whatever"},
    )
    assert_error(refused, 400, 3, "invalid policy time", "FEATURE_NAME_TIME_BASED_POLICIES")


@pytest.mark.parametrize(
    ("time", "fragment"),
    [
        ("garbage", "invalid policy time"),
        ("time.now > Timestamp('2025-01-01T00:00:00-05:00')", "zero UTC offset"),
        ("CronSpan('*/5 9 * * 1-5', '8h', 'America/New_York')", "not supported"),
        ("CronSpan('0 9 * * 1-5', '8d', 'America/New_York')", "no more than 7 days"),
        ("CronSpan('0 9 * * 1-5', '8h', 'Mars/Olympus')", "not an IANA time zone"),
        ("activity.kind == 'CREATE_WALLET'", "'activity' is a keyword of the condition field"),
    ],
)
def test_a_time_field_the_service_refuses_is_refused(tmp_path: Path, time: str, fragment: str) -> None:
    org = Org(scenario(tmp_path, "[]", "{name: FEATURE_NAME_TIME_BASED_POLICIES}"))
    refused = org.root.submit(
        "create_policy",
        "ACTIVITY_TYPE_CREATE_POLICY_V3",
        {"policyName": "t", "effect": "EFFECT_ALLOW", "notes": "", "condition": "true", "time": time},
    )
    assert_error(refused, 400, 3, fragment)


def test_a_window_that_ended_skips_the_policy_and_one_that_holds_applies(tmp_path: Path) -> None:
    org = Org(scenario(tmp_path, "[]", "{name: FEATURE_NAME_TIME_BASED_POLICIES}"))
    wallet = {"walletName": "w", "accounts": []}
    consensus = f"approvers.any(u, u.id == '{DAVE}')"
    ended = org.policy(
        "ended in 2001",
        "activity.resource == 'WALLET'",
        consensus,
        time="time.now < Timestamp('2001-01-01T00:00:00Z')",
    )
    why = org.denied(org.dave.submit("create_wallet", "ACTIVITY_TYPE_CREATE_WALLET", wallet))
    assert {"policyId": ended, "outcome": "OUTCOME_TIME_INACTIVE"} in why["policyEvaluations"][0]["policyEvaluations"]
    assert ok(org.root.query("get_policy", policyId=ended))["policy"]["time"].startswith("time.now <")
    org.policy(
        "from 2001", "activity.resource == 'WALLET'", consensus, time="time.now >= Timestamp('2001-01-01T00:00:00Z')"
    )
    made = ok(org.dave.submit("create_wallet", "ACTIVITY_TYPE_CREATE_WALLET", wallet))
    assert made["activity"]["status"] == "ACTIVITY_STATUS_COMPLETED"


def test_a_time_gated_deny_denies_only_inside_its_window(tmp_path: Path) -> None:
    org = Org(
        scenario(
            tmp_path,
            f"""\
            - name: wallets
              effect: EFFECT_ALLOW
              condition: "activity.resource == 'WALLET'"
              consensus: "approvers.any(u, u.id == '{DAVE}')"
            - name: freeze until 2100
              effect: EFFECT_DENY
              condition: "activity.resource == 'WALLET'"
              time: "time.now < Timestamp('2100-01-01T00:00:00Z')"
            """,
            "{name: FEATURE_NAME_TIME_BASED_POLICIES}",
        )
    )
    wallet = {"walletName": "w", "accounts": []}
    org.denied(org.dave.submit("create_wallet", "ACTIVITY_TYPE_CREATE_WALLET", wallet))
    org.sim.clock.advance(100 * 365 * 24 * 3600)  # past 2100: the deny is skipped
    assert ok(org.dave.submit("create_wallet", "ACTIVITY_TYPE_CREATE_WALLET", wallet))["activity"]["status"] == (
        "ACTIVITY_STATUS_COMPLETED"
    )


# -- 7. implicit permissions yield to an explicit deny (overview.mdx) -------------------------------------------


def test_a_user_adds_an_api_key_to_themself_unless_a_policy_explicitly_denies_it() -> None:
    org = Org()
    key = {"apiKeyName": "mine", "publicKey": ApiKeyStamper("11" * 32).public_key, "curveType": "API_KEY_CURVE_P256"}
    params = {"userId": DAVE, "apiKeys": [key]}
    done = ok(org.dave.submit("create_api_keys", "ACTIVITY_TYPE_CREATE_API_KEYS_V2", params))
    assert done["activity"]["status"] == "ACTIVITY_STATUS_COMPLETED"
    org.policy("no new credentials", "activity.resource == 'CREDENTIAL'", effect="EFFECT_DENY")
    key2 = {**key, "apiKeyName": "again", "publicKey": ApiKeyStamper("22" * 32).public_key}
    why = org.denied(
        org.dave.submit("create_api_keys", "ACTIVITY_TYPE_CREATE_API_KEYS_V2", {**params, "apiKeys": [key2]})
    )
    assert why["decidedBy"] == "denied by policy no new credentials"


# -- 8. the docs' contradictions warn (docs/ledger/policy-docs-contradictions.yaml) ------------------------------

BASE_DEPLOY = "activity.action == 'SIGN' && eth.tx.to == '' && eth.tx.chain_id == '8453'"


def test_create_policy_logs_a_warning_for_a_comparison_that_can_never_hold(caplog: pytest.LogCaptureFixture) -> None:
    org = Org()
    with caplog.at_level(logging.WARNING, logger="simulator.policies"):
        org.policy("deploy on Base", BASE_DEPLOY)
        org.policy(
            "permit2", "eth.eip_712.message['permitted'][0]['token'] == '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48'"
        )
    text = caplog.text
    assert "eth.tx.chain_id is an int and is compared with the string '8453'" in text
    assert "write 8453 without quotes" in text
    assert "mixed-case hex" in text and "0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48" in text


def test_explain_shows_the_warning_beside_the_policy_of_a_denied_activity() -> None:
    org = Org()
    policy_id = org.policy("wallets on Base", "activity.resource == 'WALLET' && activity.type == 'X'")
    org.policy("data", "eth.tx.data == '0x'")
    why = org.denied(
        org.dave.submit("create_user_tag", "ACTIVITY_TYPE_CREATE_USER_TAG", {"userTagName": "t", "userIds": []})
    )
    shown = {p["policyName"]: p for p in why["policies"]}
    assert shown["wallets on Base"]["policyId"] == policy_id and "warnings" not in shown["wallets on Base"]
    assert any("'' (write eth.tx.data == '')" in w for w in shown["data"]["warnings"])


def test_wallet_simulator_check_prints_the_warning(tmp_path: Path) -> None:
    path = scenario(
        tmp_path,
        f"""\
        - name: deploy on Base
          effect: EFFECT_ALLOW
          condition: "{BASE_DEPLOY}"
        """,
    )
    done = subprocess.run(
        [sys.executable, "-m", "simulator", "check", str(path)], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert f"{path}: ok" in done.stdout
    assert "eth.tx.chain_id is an int and is compared with the string '8453'" in done.stderr
