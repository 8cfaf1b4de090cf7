"""MFA policies (stored, listed, evaluated; enforcement in test_mfa_enforcement.py) and IP allow-lists
(stored and enforced on requests)."""

from __future__ import annotations

import json
import time

import pytest
from conftest import new_user, ok, result_of
from lifecycle_helpers import KEYS, ROOT_USER, api_user, sub_org
from support import assert_error

from simulator.model import mfa_policies as mfa
from simulator.testing import ApiKeyStamper, SimulatorClient

T = pytest.importorskip("turnkey_sdk_types")
PASSKEY = [{"any": [{"type": "AUTHENTICATION_TYPE_PASSKEY"}]}]
SIGNING = "activity.resource == 'PRIVATE_KEY' && activity.action == 'SIGN'"
SET = ("set_ip_allowlist", "ACTIVITY_TYPE_SET_IP_ALLOWLIST")
REMOVE = ("remove_ip_allowlist", "ACTIVITY_TYPE_REMOVE_IP_ALLOWLIST")


def new_mfa_policy(client, user_id, name="sign", order=0, methods=PASSKEY, condition=SIGNING):
    params = {"userId": user_id, "mfaPolicyName": name, "condition": condition, "order": order}
    params["requiredAuthenticationMethods"] = methods
    return client.submit("create_mfa_policy", "ACTIVITY_TYPE_CREATE_MFA_POLICY", params)


def test_mfa_policies_create_read_update_delete(client):
    made = result_of(new_mfa_policy(client, ROOT_USER, order=2), "createMfaPolicyResult")["mfaPolicyId"]
    first = result_of(new_mfa_policy(client, ROOT_USER, name="first", order=1), "createMfaPolicyResult")["mfaPolicyId"]
    listed = ok(client.query("get_mfa_policies", userId=ROOT_USER))["mfaPolicies"]
    assert [p["mfaPolicyId"] for p in listed] == [first, made]
    shown = ok(client.query("get_mfa_policy", userId=ROOT_USER, mfaPolicyId=made))["mfaPolicy"]
    assert (shown["condition"], shown["requiredAuthenticationMethods"], shown["order"]) == (SIGNING, PASSKEY, "2")
    user = ok(client.query("get_user", userId=ROOT_USER))["user"]
    assert {p["mfaPolicyId"] for p in user["mfaPolicies"]} == {first, made}
    update = ("update_mfa_policy", "ACTIVITY_TYPE_UPDATE_MFA_POLICY")
    ok(client.submit(*update, {"userId": ROOT_USER, "mfaPolicyId": made, "order": 0, "notes": "now first"}))
    listed = ok(client.query("get_mfa_policies", userId=ROOT_USER))["mfaPolicies"]
    assert [p["mfaPolicyId"] for p in listed] == [made, first] and listed[0]["notes"] == "now first"
    assert_error(
        client.submit(*update, {"userId": ROOT_USER, "mfaPolicyId": made, "mfaPolicyName": "first"}), 400, 3, "unique"
    )
    delete = ("delete_mfa_policy", "ACTIVITY_TYPE_DELETE_MFA_POLICY")
    gone = result_of(client.submit(*delete, {"userId": ROOT_USER, "mfaPolicyId": made}), "deleteMfaPolicyResult")
    assert gone == {"mfaPolicyId": made}
    assert_error(client.submit(*delete, {"userId": ROOT_USER, "mfaPolicyId": made}), 404, 5, made)
    assert_error(client.query("get_mfa_policy", userId=ROOT_USER, mfaPolicyId=made), 404, 5, made)


@pytest.mark.parametrize(
    ("overrides", "status", "phrase"),
    [
        ({"condition": "activity.("}, 400, "invalid MFA policy condition"),
        ({"order": -1}, 400, "invalid MFA policy order"),
        ({"methods": []}, 400, "at least one step"),
        ({"methods": [{"any": []}]}, 400, "at least one step"),
        ({"methods": [{"any": [{"type": "AUTHENTICATION_TYPE_EMAIL_OTP", "id": "x"}]}]}, 400, "takes no id"),
        ({"methods": [{"any": [{"type": "AUTHENTICATION_TYPE_SMS_OTP"}]}]}, 400, 'requires one of ["SMS OTP"]'),
        ({"methods": [{"any": [{"type": "AUTHENTICATION_TYPE_API_KEY", "id": "not-mine"}]}]}, 400, "cannot satisfy"),
        ({"methods": [{"any": [{"type": "AUTHENTICATION_TYPE_OAUTH"}]}]}, 400, 'requires one of ["OAuth"]'),
        ({"methods": [{"any": [{"type": "AUTHENTICATION_TYPE_SESSION", "id": "no-such-profile"}]}]}, 400, "Session"),
    ],
)
def test_mfa_policy_refusals(client, overrides, status, phrase):
    assert_error(new_mfa_policy(client, ROOT_USER, **overrides), status, 3 if status == 400 else 5, phrase)


def test_a_policy_the_user_can_meet_with_one_method_of_a_step_is_accepted(client):
    either = [{"any": [{"type": "AUTHENTICATION_TYPE_SMS_OTP"}, {"type": "AUTHENTICATION_TYPE_EMAIL_OTP"}]}]
    session = [{"any": [{"type": "AUTHENTICATION_TYPE_SESSION", "id": "00000000-0000-0000-0000-000000000000"}]}]
    ok(new_mfa_policy(client, ROOT_USER, name="either", methods=either))
    ok(new_mfa_policy(client, ROOT_USER, name="default session", methods=session))
    message = assert_error(new_mfa_policy(client, "00000000-0000-4000-8000-0000000000c4", name="x"), 404, 5)["message"]
    assert "00000000-0000-4000-8000-0000000000c4" in message
    user_id = new_user(client)
    refused = assert_error(new_mfa_policy(client, user_id), 400, 3)
    assert refused["message"] == (
        f"user ({user_id}) cannot satisfy mfa policy requirement: mfa policy 'sign' requires one of "
        '["Passkey"] but user does not, or will not, have a matching credential'
    )


def test_mfa_policy_for_a_missing_user_and_without_a_policy(client):
    assert_error(
        new_mfa_policy(client, "00000000-0000-4000-8000-0000000000c5"), 404, 5, "00000000-0000-4000-8000-0000000000c5"
    )
    user_id, bob = api_user(client, "Bob")
    assert_error(new_mfa_policy(bob, user_id), 403, 7)


def test_the_first_matching_policy_by_order_applies(client, simulator):
    made = result_of(new_mfa_policy(client, ROOT_USER, name="early", order=1), "createMfaPolicyResult")["mfaPolicyId"]
    ok(new_mfa_policy(client, ROOT_USER, name="late", order=5, condition="true"))  # enforced from now on
    user = simulator.simulator.store.org(client.organization_id).users[ROOT_USER]
    signing = {"activity": {"resource": "PRIVATE_KEY", "action": "SIGN", "type": "ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2"}}
    assert mfa.applicable(user, signing).mfa_policy_id == made
    assert mfa.applicable(user, {"activity": {"resource": "WALLET", "action": "CREATE"}}).name == "late"


def test_get_mfa_status_of_an_activity(client):
    activity = ok(client.submit("create_wallet", "ACTIVITY_TYPE_CREATE_WALLET", {"walletName": "w", "accounts": []}))
    assert ok(client.query("get_mfa_status", activityId=activity["activity"]["id"]))["mfaStatuses"] == []
    assert_error(
        client.query("get_mfa_status", activityId="00000000-0000-4000-8000-0000000000c6"),
        404,
        5,
        "00000000-0000-4000-8000-0000000000c6",
    )


def at(client: SimulatorClient, ip: str, op: str = "whoami"):
    body = {"organizationId": client.organization_id}
    return client.post(f"/public/v1/query/{op}", json.dumps(body).encode(), {"X-Simulator-Client-Ip": ip})


def test_an_enabled_organization_list_blocks_other_addresses(client):
    rules = [{"cidr": "203.0.113.77/24", "label": "office"}, {"cidr": "203.0.113.0/24", "label": "dup"}]
    assert result_of(client.submit(*SET, {"enabled": False, "rules": rules}), "setIpAllowlistResult") == {}
    allowlist = ok(client.query("get_ip_allowlist"))["allowlist"]
    assert allowlist["rules"] == [
        {"cidr": "203.0.113.0/24", "label": "office", "createdAt": allowlist["rules"][0]["createdAt"]}
    ]
    assert allowlist["enabled"] is False and allowlist["onEvaluationError"] == "DENY"
    assert at(client, "198.51.100.1").status == 200  # staged, not enabled
    ok(client.submit(*SET, {"enabled": True, "rules": rules}))
    assert at(client, "203.0.113.9").status == 200
    assert_error(at(client, "198.51.100.1"), 403, 7, "198.51.100.1 is not allowed")
    assert_error(client.query("whoami"), 403, 7, "127.0.0.1 is not allowed")  # the real peer address
    ok(
        client.post(
            "/public/v1/submit/remove_ip_allowlist",
            _signed(client, REMOVE, {}),
            {"X-Simulator-Client-Ip": "203.0.113.1"},
        )
    )
    assert ok(client.query("get_ip_allowlist"))["allowlist"]["rules"] == []
    assert ok(client.query("whoami"))


def test_a_key_list_replaces_the_organization_list_for_that_key(client):
    _, bob = api_user(client, "Bob")
    bob_key = ApiKeyStamper(KEYS["bob"]).public_key
    ok(client.submit(*SET, {"publicKey": bob_key, "rules": [{"cidr": "192.0.2.0/24"}]}))
    assert at(bob, "198.51.100.1").status == 200  # key lists apply only under an enabled organization list
    ok(client.submit(*SET, {"enabled": True, "rules": [{"cidr": "127.0.0.0/24"}, {"cidr": "198.51.100.0/24"}]}))
    assert at(bob, "192.0.2.5").status == 200
    assert_error(at(bob, "198.51.100.1"), 403, 7, "API key")
    assert at(client, "198.51.100.1").status == 200
    ok(client.submit(*SET, {"publicKey": bob_key, "rules": []}))  # empty: back to the organization's list
    assert at(bob, "198.51.100.1").status == 200
    shown = ok(client.query("get_ip_allowlist", publicKey=bob_key))["allowlist"]
    assert shown["publicKey"] == bob_key and "enabled" not in shown


def test_an_enabled_list_without_rules_blocks_everything_and_sub_orgs_are_exempt(client):
    org_id, _, as_root = sub_org(client, "sub", key=KEYS["dave"])
    ok(client.submit(*SET, {"enabled": True, "rules": [], "onEvaluationError": "ALLOW"}))
    assert_error(at(client, "203.0.113.1"), 403, 7)
    assert at(client, "not-an-ip").status == 200  # an address that cannot be read follows onEvaluationError
    assert as_root is not None and at(as_root, "203.0.113.1").status == 200


@pytest.mark.parametrize(
    ("params", "status", "phrase"),
    [
        ({"rules": [{"cidr": "10.0.0.0/8"}]}, 400, "broader than /20"),
        ({"rules": [{"cidr": "2001:db8::/32"}]}, 400, "broader than /48"),
        ({"rules": [{"cidr": "10.0.0.0/24"}, {"cidr": "banana"}]}, 400, "rules[1]: 'banana'"),
        ({"rules": [{"cidr": f"10.0.{i}.0/24"} for i in range(11)]}, 400, "too many IPv4 rules"),
        ({"onEvaluationError": "MAYBE"}, 400, "ALLOW or DENY"),
        ({"publicKey": "02" + "11" * 32}, 401, "no API key"),
    ],
)
def test_set_ip_allowlist_refusals(client, params, status, phrase):
    response = client.submit(*SET, params)
    assert response.status in (status, 404) and phrase in response.body["message"]


def test_allow_lists_are_for_parent_organizations_and_root_users(client):
    _, _, as_root = sub_org(client, "sub", key=KEYS["dave"])
    assert as_root is not None
    assert_error(as_root.submit(*SET, {"rules": []}), 403, 7, "belong to the parent organization")
    _, bob = api_user(client, "Bob")
    assert_error(bob.submit(*SET, {"rules": []}), 403, 7)
    assert_error(client.submit(*REMOVE, {}), 404, 5, "no IP allow-list")


def test_the_official_python_client(turnkey_client, client):
    tk = turnkey_client
    user_id = new_user(client, userEmail="mfa@example.com")
    methods = [
        T.v1RequiredAuthenticationMethodParams(
            any=[T.v1AuthenticationMethodParams(type="AUTHENTICATION_TYPE_EMAIL_OTP")]
        )
    ]
    made = tk.create_mfa_policy(
        T.CreateMfaPolicyBody(
            userId=user_id, mfaPolicyName="m", condition="true", requiredAuthenticationMethods=methods, order=0
        )
    )
    policy_id = made.mfaPolicyId
    assert tk.get_mfa_policy(T.GetMfaPolicyBody(userId=user_id, mfaPolicyId=policy_id)).mfaPolicy.mfaPolicyName == "m"
    assert (
        tk.update_mfa_policy(T.UpdateMfaPolicyBody(userId=user_id, mfaPolicyId=policy_id, order=3)).mfaPolicyId
        == policy_id
    )
    assert [p.order for p in tk.get_mfa_policies(T.GetMfaPoliciesBody(userId=user_id)).mfaPolicies] == [3]
    assert tk.get_mfa_status(T.GetMfaStatusBody(activityId=made.activity.id)).mfaStatuses == []
    assert tk.delete_mfa_policy(T.DeleteMfaPolicyBody(userId=user_id, mfaPolicyId=policy_id)).mfaPolicyId == policy_id
    tk.set_ip_allowlist(T.SetIpAllowlistBody(enabled=False, rules=[T.v1IpAllowlistIntentRule(cidr="127.0.0.1/32")]))
    assert tk.get_ip_allowlist(T.GetIpAllowlistBody()).allowlist.rules[0].cidr == "127.0.0.1/32"
    tk.remove_ip_allowlist(T.RemoveIpAllowlistBody())
    assert tk.get_ip_allowlist(T.GetIpAllowlistBody()).allowlist.rules == []


def _signed(client: SimulatorClient, spec: tuple[str, str], params: dict) -> bytes:
    body = {
        "parameters": params,
        "organizationId": client.organization_id,
        "timestampMs": str(int(time.time() * 1000)),
        "type": spec[1],
    }
    return json.dumps(body).encode()
