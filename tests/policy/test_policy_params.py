"""``activity.params`` speaks the service's names: snake case, only the fields the language page's table
exposes (simulator/policy/params_table.py); any other field, or the request's camelCase spelling, is an
evaluation error (MissingField) that names the fields exposed: in explain, the activity's evaluations
and the inspector; a field no activity type has at all is refused by create_policy and update_policy,
and warned of in a scenario file that loads it anyway."""

from __future__ import annotations

import json
import textwrap
import warnings
from pathlib import Path
from typing import Any

import pytest
import requests
from conftest import DEFAULTS, ok
from support import POLICY_DENY_DAVE, SELF_DELETE, assert_error, create_policy, refused_by_an_erroring_policy

from simulator.config import Config
from simulator.core import Simulator
from simulator.policy.language import compile_expression
from simulator.policy.params import params_view, snake, unknown_paths
from simulator.scenario import ScenarioWarning, load_scenario, resolve_scenario
from simulator.testing import ApiKeyStamper, InProcessClient
from simulator.web.app import create_app

DAVE = POLICY_DENY_DAVE


def holds(text: str, activity_type: str, params: dict[str, Any]) -> Any:
    """The verdict of ``text`` on an activity of ``activity_type`` as the engine shows it to policies."""
    context = {"activity": {"type": activity_type, "params": params_view(activity_type, params)}}
    return compile_expression(text).check(context)


# -- one rule: camelCase -> snake_case, recursively ------------------------------------------------------------


@pytest.mark.parametrize(
    ("camel", "expected"),
    [
        ("userIds", "user_ids"),
        ("targetPublicKey", "target_public_key"),
        ("apiKeys", "api_keys"),
        ("organizationId", "organization_id"),
        ("oauth2CredentialId", "oauth2_credential_id"),
        ("attestationDocB64", "attestation_doc_b64"),
        ("chainCaip2", "chain_caip2"),
        ("type", "type"),
    ],
)
def test_one_rule_names_every_field(camel: str, expected: str) -> None:
    assert snake(camel) == expected


@pytest.mark.parametrize(
    ("activity_type", "params", "text"),
    [
        ("ACTIVITY_TYPE_DELETE_USERS", {"userIds": ["a", "b"]}, "activity.params.user_ids == ['a', 'b']"),
        ("ACTIVITY_TYPE_UPDATE_WALLET", {"walletId": "w-1"}, "activity.params.wallet_id == 'w-1'"),
        (
            "ACTIVITY_TYPE_EXPORT_WALLET",
            {"walletId": "w", "targetPublicKey": "04ab"},
            "activity.params.target_public_key == '04ab'",
        ),
        (
            "ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2",
            {"signWith": "0x1", "payload": "00", "encoding": "PAYLOAD_ENCODING_HEXADECIMAL", "hashFunction": "X"},
            "activity.params.hash_function == 'X' && activity.params.encoding != 'PAYLOAD_ENCODING_EIP712'",
        ),
        (
            "ACTIVITY_TYPE_DELETE_API_KEYS",
            {"userId": "u-1", "apiKeyIds": ["k-1"]},
            "activity.params.user_id == 'u-1' && activity.params.api_key_ids.contains('k-1')",
        ),
        (  # a nested struct, its int64 (a decimal string on the wire) compared as an int
            "ACTIVITY_TYPE_SPARK_PREPARE_TRANSFER",
            {"signWith": "sp1", "transfer": {"receiverPublicKey": "02bb", "threshold": "2", "leaves": []}},
            "activity.params.sign_with == 'sp1' && activity.params.transfer.receiver_public_key == '02bb' "
            "&& activity.params.transfer.threshold == 2",
        ),
        (  # a oneof of messages: the service's ``type`` says which one is set (language.mdx, Spark)
            "ACTIVITY_TYPE_SPARK_SIGN_FROST",
            {"signWith": "sp1", "signatures": [{"derivation": {"signingLeaf": {"leafId": "L1"}}}]},
            "activity.params.signatures.all(sig, sig.derivation.type == 'signing_leaf' "
            "&& sig.derivation.signing_leaf.leaf_id == 'L1' && sig.derivation.static_deposit.index == 0)",
        ),
        (  # an omitted field reads as its type's default (docs: "an empty string when omitted")
            "ACTIVITY_TYPE_OTP_LOGIN",
            {"verificationToken": "t", "publicKey": "02cc"},
            "activity.params.session_profile_id == ''",
        ),
    ],
)
def test_params_are_snake_case_for_every_activity_type(activity_type: str, params: Any, text: str) -> None:
    verdict = holds(text, activity_type, params)
    assert verdict.matched and not verdict.errored, verdict.error


@pytest.mark.parametrize(
    "text",
    [
        "activity.params.userIds == ['a']",  # the request's spelling: earlier versions read it, the service errors
        "activity.params['userIds'][0] == 'a'",
    ],
)
def test_the_camel_case_spelling_is_a_missing_field(text: str) -> None:
    verdict = holds(text, "ACTIVITY_TYPE_DELETE_USERS", {"userIds": ["a"]})
    assert verdict.errored and not verdict.matched
    assert "its fields: user_ids" in str(verdict.error)


def test_nested_camel_case_names_are_missing_fields_too() -> None:
    params = {"signWith": "sp1", "transfer": {"receiverPublicKey": "02bb", "leaves": []}}
    assert holds(
        "activity.params.transfer.receiver_public_key == '02bb'", "ACTIVITY_TYPE_SPARK_PREPARE_TRANSFER", params
    )
    verdict = holds(
        "activity.params.transfer.receiverPublicKey == '02bb'", "ACTIVITY_TYPE_SPARK_PREPARE_TRANSFER", params
    )
    assert verdict.errored and "receiver_public_key" in str(verdict.error)


def test_a_field_the_activity_lacks_errors_naming_those_it_has() -> None:
    verdict = holds("activity.params.user_ids.count() == 1", "ACTIVITY_TYPE_CREATE_WALLET", {"walletName": "w"})
    assert verdict.errored and not verdict.matched
    assert "MissingField: 'activity.params.user_ids' is not a parameter of ACTIVITY_TYPE_CREATE_WALLET" in verdict.error
    assert "it exposes no fields" in verdict.error
    assert verdict.missing == ("activity.params.user_ids",)


def test_only_the_documented_fields_are_exposed() -> None:
    """The issue's example: CREATE_WALLET has a walletName, but the engine exposes no field of it."""
    verdict = holds("activity.params.wallet_name == 'w'", "ACTIVITY_TYPE_CREATE_WALLET", {"walletName": "w"})
    assert verdict.errored and "it exposes no fields" in str(verdict.error)
    verdict = holds("activity.params.sign_with == 'x'", "ACTIVITY_TYPE_SIGN_TRANSACTION_V2", {"signWith": "x"})
    assert verdict.errored and "its fields: type" in str(verdict.error)
    verdict = holds("activity.params.wallet_name == 'w'", "ACTIVITY_TYPE_UPDATE_WALLET", {"walletName": "w"})
    assert verdict.errored and "its fields: wallet_id" in str(verdict.error)


def test_the_error_is_not_short_circuited_away() -> None:
    """Like a missing eth.tx: a clause that can never be evaluated errors the whole condition."""
    verdict = holds("false && activity.params.nope == 1", "ACTIVITY_TYPE_DELETE_USERS", {"userIds": []})
    assert verdict.errored and "its fields: user_ids" in verdict.error


def test_a_nested_field_the_activity_lacks_names_the_nested_fields() -> None:
    params = {"signWith": "sp1", "signatures": [{"derivation": {"identity": {}}}]}
    verdict = holds(
        "activity.params.signatures.all(s, s.derivation.leaf == '')", "ACTIVITY_TYPE_SPARK_SIGN_FROST", params
    )
    assert verdict.errored
    assert (
        "'activity.params.signatures[].derivation.leaf' is not a field of activity.params.signatures[].derivation"
        in (verdict.error)
    )
    assert "deposit, htlc_preimage, identity, signing_leaf, static_deposit, type" in verdict.error


def test_a_plain_context_keeps_reading_missing_members_as_empty() -> None:
    """The language itself is unchanged: only an activity's parameters are checked against its schema."""
    context = {"activity": {"type": "ACTIVITY_TYPE_X", "params": {"walletName": "w"}}}
    assert compile_expression("activity.params.nope == 'x'").evaluate(context) is False


def test_paths_no_activity_type_has_are_found_with_the_fields_that_exist() -> None:
    assert unknown_paths(compile_expression(SELF_DELETE).root) == []
    assert unknown_paths(compile_expression("activity.params.user_ids.count() == 1").root) == []
    pinned = unknown_paths(compile_expression("activity.kind == 'DELETE_USERS' && activity.params.user == 'x'").root)
    assert pinned == [
        "no activity type has 'activity.params.user' (the fields of activity.params of ACTIVITY_TYPE_DELETE_USERS: "
        "user_ids)"
    ]
    nested = unknown_paths(compile_expression("activity.params.transfer.receiver == 'x'").root)
    assert nested == [
        "no activity type has 'activity.params.transfer.receiver' (the fields of activity.params.transfer: "
        "leaves, operator_recipients, receiver_public_key, threshold, transfer_id)"
    ]
    [anywhere] = unknown_paths(compile_expression("activity.params.user_idz == 'x'").root)
    assert "did you mean user_id or user_ids" in anywhere


# -- through HTTP ----------------------------------------------------------------------------------------------


@pytest.mark.simulator_scenario("policy_deny")
def test_documented_fields_allow_and_undocumented_ones_error_over_http(simulator, simulator_user) -> None:
    root, dave = simulator_user("Root User"), simulator_user("Dave")
    ok(create_policy(root, "bots", "activity.params.users.all(u, u.user_name.contains('bot'))"))
    ok(create_policy(root, "wallet", "activity.kind == 'UPDATE_WALLET' && activity.params.wallet_id != ''"))
    refused = dave.submit("create_users", "ACTIVITY_TYPE_CREATE_USERS_V3", {"users": [user_spec("bot-1")]})
    assert_error(refused, 403, 7)  # CREATE_USERS exposes no field: MissingField, nothing allows
    wallet = ok(root.submit("create_wallet", "ACTIVITY_TYPE_CREATE_WALLET", {"walletName": "w", "accounts": []}))
    wallet_id = wallet["activity"]["result"]["createWalletResult"]["walletId"]
    updated = ok(
        dave.submit("update_wallet", "ACTIVITY_TYPE_UPDATE_WALLET", {"walletId": wallet_id, "walletName": "x"})
    )
    assert updated["activity"]["status"] == "ACTIVITY_STATUS_COMPLETED"


def user_spec(name: str) -> dict[str, Any]:
    return {"userName": name, "apiKeys": [], "authenticators": [], "oauthProviders": [], "userTags": []}


def assert_reason(evaluations: list[Any], policy_id: str) -> dict[str, Any]:
    [errored] = [o for o in evaluations[0]["policyEvaluations"] if o.get("policyId") == policy_id]
    assert errored["outcome"] == "OUTCOME_ERROR"
    reason = errored["reason"]
    assert "'activity.params.user_ids' is not a parameter of ACTIVITY_TYPE_CREATE_PRIVATE_KEY_TAG" in reason
    assert "it exposes no fields" in reason
    return dict(errored)


@pytest.mark.simulator_scenario("policy_deny")
def test_an_unknown_field_is_outcome_error_with_the_fields_in_explain_and_evaluations(simulator, simulator_user):
    root, dave = simulator_user("Root User"), simulator_user("Dave")
    created = ok(create_policy(root, "self delete", SELF_DELETE))["activity"]["result"]
    policy_id = created["createPolicyResult"]["policyId"]
    activity_id = refused_by_an_erroring_policy(dave)
    # the wire keeps the service's shape
    kept = ok(dave.query("get_policy_evaluations", activityId=activity_id))["policyEvaluations"][0]
    assert kept["policyEvaluations"] == [{"policyId": policy_id, "outcome": "OUTCOME_ERROR"}]
    # explain, over the control API, says why and lists the fields that exist
    explained = requests.get(f"{simulator.url}/_simulator/activities/{activity_id}/explain", timeout=10).json()
    assert "policy self delete errored: MissingField" in explained["decidedBy"]
    assert_reason(explained["policyEvaluations"], policy_id)
    assert any(
        step.startswith(f"policy {policy_id} errored: 'self delete': MissingField") for step in explained["steps"]
    )


def test_the_inspector_shows_why_a_policy_errored() -> None:
    app = create_app(Simulator(Config(scenarios=(resolve_scenario("policy_deny"),), inspector=True)))
    sim = app.extensions["simulator"]

    def user(name: str) -> InProcessClient:
        creds = next(c for c in sim.credentials if c["userName"] == name)
        return InProcessClient(app, ApiKeyStamper(creds["apiPrivateKey"]), creds["organizationId"])

    created = ok(create_policy(user("Root User"), "self delete", SELF_DELETE))["activity"]["result"]
    policy_id = created["createPolicyResult"]["policyId"]
    activity_id = refused_by_an_erroring_policy(user("Dave"))
    with app.test_client().get(f"/_simulator/ui/api/activities/{activity_id}") as response:
        story = response.get_json()
    assert_reason(story["explanation"]["policyEvaluations"], policy_id)
    assert [p["policyName"] for p in story["policies"]] == ["self delete"]


@pytest.mark.simulator_scenario("policy_deny")
def test_create_policy_refuses_a_field_no_activity_type_has(simulator, simulator_user):
    root = simulator_user("Root User")
    before = ok(root.query("list_policies"))["policies"]
    refused = create_policy(
        root, "typo", "activity.type == 'ACTIVITY_TYPE_DELETE_USERS' && activity.params.user_idz == []"
    )
    assert_error(
        refused,
        400,
        3,
        "invalid policy condition: no activity type has 'activity.params.user_idz'",
        "activity.params of ACTIVITY_TYPE_DELETE_USERS: user_ids",
    )
    assert ok(root.query("list_policies"))["policies"] == before


@pytest.mark.simulator_scenario("policy_deny")
def test_update_policy_refuses_it_too(simulator, simulator_user):
    root = simulator_user("Root User")
    policy_id = ok(create_policy(root, "fine", "activity.params.wallet_id == 'w'"))["activity"]["result"]
    policy_id = policy_id["createPolicyResult"]["policyId"]
    refused = root.submit(
        "update_policy",
        "ACTIVITY_TYPE_UPDATE_POLICY_V2",
        {"policyId": policy_id, "policyCondition": "activity.params.walet_id == 'w'"},
    )
    assert_error(refused, 400, 3, "no activity type has 'activity.params.walet_id'", "did you mean wallet_id")
    stored = ok(root.query("get_policy", policyId=policy_id))["policy"]
    assert stored["condition"] == "activity.params.wallet_id == 'w'"


def test_a_scenario_policy_with_an_unknown_field_still_loads_with_a_warning(tmp_path: Path) -> None:
    path = tmp_path / "old.yaml"
    path.write_text(
        textwrap.dedent(
            """\
            version: 1
            organizations:
              - name: Old
                users:
                  - {name: Root, apiKeys: [{name: k}]}
                policies:
                  - name: old spelling
                    effect: EFFECT_ALLOW
                    condition: "activity.params.walletNam == 'x'"
            """
        )
    )
    with pytest.warns(ScenarioWarning) as caught:
        load_scenario(path)
    message = str(caught[0].message)
    assert f"{path}:9:" in message and "no activity type has 'activity.params.walletNam'" in message
    assert "did you mean wallet_name" in message
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ScenarioWarning)
        sim = Simulator(Config(scenarios=(path,)))
    [org] = [o for o in sim.store.orgs.values() if o.name == "Old"]
    [policy] = org.policies.values()
    assert policy.condition == "activity.params.walletNam == 'x'"
    # over HTTP it can still be renamed; a new text naming an unknown field is refused
    creds = next(c for c in sim.credentials if c["userName"] == "Root")
    root = InProcessClient(create_app(sim), ApiKeyStamper(creds["apiPrivateKey"]), creds["organizationId"])
    renamed = {"policyId": policy.policy_id, "policyName": "renamed"}
    ok(root.submit("update_policy", "ACTIVITY_TYPE_UPDATE_POLICY_V2", renamed))
    retyped = {"policyId": policy.policy_id, "policyCondition": "activity.params.walletNme == 'x'"}
    refused = root.submit("update_policy", "ACTIVITY_TYPE_UPDATE_POLICY_V2", retyped)
    assert_error(refused, 400, 3, "no activity type has 'activity.params.walletNme'")
    assert (policy.name, policy.condition) == ("renamed", "activity.params.walletNam == 'x'")


# -- the agent-wallet self-delete policy, with the official Python client ---------------------------------------


def python_client(server: Any, private_hex: str) -> Any:
    from turnkey_api_key_stamper import ApiKeyStamper as TheirStamper
    from turnkey_api_key_stamper import ApiKeyStamperConfig
    from turnkey_http import TurnkeyClient

    public = ApiKeyStamper(private_hex).public_key
    stamper = TheirStamper(ApiKeyStamperConfig(api_public_key=public, api_private_key=private_hex))
    return TurnkeyClient(base_url=server.url, stamper=stamper, organization_id=DEFAULTS["organizationId"])


@pytest.mark.simulator_scenario("policy_deny")
def test_the_agent_wallet_self_delete_policy_allows_exactly_the_self_delete(simulator):
    T = pytest.importorskip("turnkey_sdk_types")
    from turnkey_sdk_types.errors import TurnkeyNetworkError

    root = python_client(simulator, DEFAULTS["apiPrivateKey"])
    dave = python_client(simulator, "da4e000000000000000000000000000000000000000000000000000000000001")
    root.create_policy(
        T.CreatePolicyBody(
            policyName="Allow agent to self-delete",
            effect="EFFECT_ALLOW",
            consensus=f"approvers.any(user, user.id == '{DAVE}')",
            condition=SELF_DELETE,
            notes="",
        )
    )
    other = root.create_users(
        T.CreateUsersBody(
            users=[T.v1UserParamsV3(userName="other", apiKeys=[], authenticators=[], oauthProviders=[], userTags=[])]
        )
    ).activity.result.createUsersResult.userIds[0]
    for refused in (
        lambda: dave.delete_users(T.DeleteUsersBody(userIds=[other])),  # another user
        lambda: dave.delete_users(T.DeleteUsersBody(userIds=[DAVE, other])),  # two users, itself among them
        lambda: dave.create_user_tag(T.CreateUserTagBody(userTagName="t", userIds=[])),  # another activity type
    ):
        with pytest.raises(TurnkeyNetworkError, match="sufficient permissions") as caught:
            refused()
        assert caught.value.status_code == 403
    users = {u.userId for u in root.get_users(T.GetUsersBody()).users}
    assert {DAVE, other} <= users
    deleted = dave.delete_users(T.DeleteUsersBody(userIds=[DAVE]))
    assert deleted.activity.status == "ACTIVITY_STATUS_COMPLETED"
    assert DAVE not in {u.userId for u in root.get_users(T.GetUsersBody()).users}
    assert json.dumps(deleted.activity.result.deleteUsersResult.userIds) == json.dumps([DAVE])


def test_an_int_field_of_more_digits_than_int_reads_is_a_policy_error_not_a_crash() -> None:
    """int() refuses 4,300+ digits: such a value stays a string, which the comparison refuses."""
    rule = "activity.params.transfer.threshold > 1"  # an int64 field the language page's table exposes
    kind = "ACTIVITY_TYPE_SPARK_PREPARE_TRANSFER"
    assert holds(rule, kind, {"signWith": "sp1", "transfer": {"threshold": "2", "leaves": []}}).matched is True
    verdict = holds(rule, kind, {"signWith": "sp1", "transfer": {"threshold": "9" * 5000, "leaves": []}})
    assert verdict.matched is False and "cannot compare a string with an int" in verdict.error
