"""Documented OTP and tag limits through HTTP, each at its boundary (the last accepted, the first
refused), windows on the simulated clock; and the smart contract interface's required ``notes``.

OTP (docs.turnkey.com/authentication/email, "OTP rate limits"): with a ``userIdentifier``, 3
requests per 3 minutes per identifier; 3 active codes per contact; past either, 400/3
``MAX_OTP_INITIATED``. Tags (docs.turnkey.com/reference/resource-limits): 100 in a parent
organization, 10 in a sub-organization, refused as the other resource limits are (429/8).
"""

from __future__ import annotations

import itertools
import json
import time
from typing import Any

import pytest
from conftest import ok, result_of
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat
from support import assert_error, refused_unchanged, sub_org

from simulator.errors import QUOTA, documented
from simulator.testing import ApiKeyStamper, SimulatorClient

TOO_MANY = "Max number of OTPs have been initiated please wait and try again"
WINDOW_S = 180
_stamps = itertools.count()


def init_otp(client: SimulatorClient, contact: str, identifier: str | None = None) -> Any:
    params = {"otpType": "OTP_TYPE_EMAIL", "contact": contact, "appName": "Demo"}
    if identifier is not None:
        params["userIdentifier"] = identifier
    stamp = str(int(time.time() * 1000) + next(_stamps) % 1000)  # each body its own: no idempotent replay
    return client.submit("init_otp", "ACTIVITY_TYPE_INIT_OTP_V2", params, timestampMs=stamp)


def started(response: Any) -> str:
    return str(result_of(response, "initOtpResult")["otpId"])


def assert_too_many(body: dict[str, Any]) -> None:
    assert body["message"] == TOO_MANY and body["turnkeyErrorCode"] == "MAX_OTP_INITIATED"


# --- per identifier: 3 requests in 3 minutes ---------------------------------------------------------


def test_a_fourth_init_otp_for_one_identifier_within_3_minutes_is_refused(
    simulator_client, simulator_control, frozen_clock
):
    for n in range(3):  # different contacts: only the identifier is shared
        started(init_otp(simulator_client, f"user{n}@example.com", "ip-hash-1"))
    body = refused_unchanged(
        simulator_control, lambda: init_otp(simulator_client, "user3@example.com", "ip-hash-1"), 400, 3, TOO_MANY
    )
    assert_too_many(body)
    started(init_otp(simulator_client, "user3@example.com", "ip-hash-2"))  # another identifier has its own count
    started(init_otp(simulator_client, "user4@example.com"))  # no identifier: only the per-contact limit


def test_the_identifier_window_reopens_3_minutes_after_the_first_request(
    simulator_client, simulator_control, frozen_clock
):
    started(init_otp(simulator_client, "a@example.com", "ip-hash-1"))
    simulator_control.advance_clock(60)
    started(init_otp(simulator_client, "b@example.com", "ip-hash-1"))
    started(init_otp(simulator_client, "c@example.com", "ip-hash-1"))
    simulator_control.advance_clock(WINDOW_S - 60 - 0.001)  # 1 ms before the first request leaves the window
    assert_too_many(assert_error(init_otp(simulator_client, "d@example.com", "ip-hash-1"), 400, 3))
    simulator_control.advance_clock(0.001)
    started(init_otp(simulator_client, "d@example.com", "ip-hash-1"))  # one slot: the first request's
    assert_too_many(assert_error(init_otp(simulator_client, "e@example.com", "ip-hash-1"), 400, 3))


def test_a_refused_init_otp_is_not_counted(simulator_client, simulator_control, frozen_clock):
    for n in range(3):
        started(init_otp(simulator_client, f"user{n}@example.com", "ip-hash-1"))
    simulator_control.advance_clock(WINDOW_S - 1)
    for _ in range(3):
        assert_error(init_otp(simulator_client, "late@example.com", "ip-hash-1"), 400, 3)
    simulator_control.advance_clock(1)
    for n in range(3):  # the three refusals took no slot of the next window
        started(init_otp(simulator_client, f"next{n}@example.com", "ip-hash-1"))


# --- per contact: 3 active codes ---------------------------------------------------------------------


def test_a_fourth_active_code_for_one_contact_is_refused_until_one_expires(
    simulator_client, simulator_control, frozen_clock
):
    for _ in range(3):
        started(init_otp(simulator_client, "alice@example.com"))
    assert_too_many(
        refused_unchanged(simulator_control, lambda: init_otp(simulator_client, "alice@example.com"), 400, 3)
    )
    simulator_control.advance_clock(300 - 0.001)  # codes live 5 minutes
    assert_too_many(assert_error(init_otp(simulator_client, "alice@example.com"), 400, 3))
    simulator_control.advance_clock(0.001)
    started(init_otp(simulator_client, "alice@example.com"))


def test_a_used_code_no_longer_counts_for_its_contact(simulator, simulator_client, frozen_clock):
    ids = [started(init_otp(simulator_client, "alice@example.com")) for _ in range(3)]
    code = next(m["code"] for m in simulator.simulator.outbox("alice@example.com") if m["otpId"] == ids[0])
    verified = simulator_client.submit("verify_otp", "ACTIVITY_TYPE_VERIFY_OTP", {"otpId": ids[0], "otpCode": code})
    assert result_of(verified, "verifyOtpResult")["verificationToken"]
    started(init_otp(simulator_client, "alice@example.com"))


def test_the_python_client_sees_max_otp_initiated(turnkey_client, frozen_clock):
    T = pytest.importorskip("turnkey_sdk_types")

    def init(contact: str) -> Any:
        body = T.InitOtpBody(otpType="OTP_TYPE_EMAIL", contact=contact, appName="Demo", userIdentifier="ip-py")
        return turnkey_client.init_otp(body)

    assert all(init(f"py{n}@example.com").otpId for n in range(3))
    with pytest.raises(T.TurnkeyNetworkError) as raised:
        init("py3@example.com")
    assert raised.value.status_code == 400 and TOO_MANY in str(raised.value)


# --- the auth proxy: the same limits on /v1/otp_init and /v1/otp_init_v2 ----------------------------


def proxy_init(simulator: Any, op: str, contact: str, identifier: str) -> Any:
    proxy = SimulatorClient(simulator.proxy_url, None, "")
    body = {"otpType": "OTP_TYPE_EMAIL", "contact": contact, "userIdentifier": identifier}
    headers = {"X-Auth-Proxy-Config-Id": "proxy-config-1", "Origin": "http://localhost:3000"}
    return proxy.post(f"/v1/{op}", json.dumps(body).encode(), headers)


@pytest.mark.simulator_scenario("../scenarios/auth_proxy.yaml")
def test_the_auth_proxy_refuses_a_fourth_otp_for_one_identifier(simulator, simulator_control, frozen_clock):
    ok(proxy_init(simulator, "otp_init", "p0@example.com", "ip-hash-9"))
    ok(proxy_init(simulator, "otp_init", "p1@example.com", "ip-hash-9"))
    ok(proxy_init(simulator, "otp_init_v2", "p2@example.com", "ip-hash-9"))  # both endpoints count together
    for op in ("otp_init", "otp_init_v2"):
        refused = refused_unchanged(
            simulator_control, lambda op=op: proxy_init(simulator, op, "p3@example.com", "ip-hash-9"), 400, 3
        )
        assert_too_many(refused)
    simulator_control.advance_clock(WINDOW_S)
    assert ok(proxy_init(simulator, "otp_init", "p3@example.com", "ip-hash-9"))["otpId"]


# --- tags: 10 in a sub-organization, 100 in a parent ---------------------------------------------------


def create_tag(client: SimulatorClient, kind: str, name: str) -> Any:
    if kind == "user":
        return client.submit("create_user_tag", "ACTIVITY_TYPE_CREATE_USER_TAG", {"userTagName": name, "userIds": []})
    params = {"privateKeyTagName": name, "privateKeyIds": []}
    return client.submit("create_private_key_tag", "ACTIVITY_TYPE_CREATE_PRIVATE_KEY_TAG", params)


def sub_org_client(simulator: Any, parent: SimulatorClient) -> SimulatorClient:
    key = ec.generate_private_key(ec.SECP256R1())
    public = key.public_key().public_bytes(Encoding.X962, PublicFormat.CompressedPoint).hex()
    api_key = {"apiKeyName": "root", "publicKey": public, "curveType": "API_KEY_CURVE_P256"}
    child_id, _ = sub_org(parent, apiKeys=[api_key])
    return SimulatorClient(simulator.url, ApiKeyStamper(f"{key.private_numbers().private_value:064x}"), child_id)


def test_a_sub_organization_accepts_10_tags_and_refuses_the_11th(simulator, simulator_client, simulator_control):
    child = sub_org_client(simulator, simulator_client)
    for n in range(5):  # user and private-key tags share the allowance
        ok(create_tag(child, "user", f"u{n}"))
        ok(create_tag(child, "private key", f"k{n}"))
    for kind in ("user", "private key"):
        body = refused_unchanged(
            simulator_control, lambda kind=kind: create_tag(child, kind, "eleventh"), 429, 8, "limit of 10 tags"
        )
        assert body["message"] == documented(QUOTA, "sub-organization has reached its limit of 10 tags")
    listed = ok(child.query("list_user_tags"))["userTags"]
    delete = {"userTagIds": [listed[0]["tagId"]]}
    result_of(child.submit("delete_user_tags", "ACTIVITY_TYPE_DELETE_USER_TAGS", delete), "deleteUserTagsResult")
    ok(create_tag(child, "user", "eleventh"))  # room again once a tag is gone


def test_a_parent_organization_accepts_100_tags_and_refuses_the_101st(simulator_client, simulator_control):
    for n in range(100):
        ok(create_tag(simulator_client, "user" if n % 2 else "private key", f"tag{n}"))
    body = refused_unchanged(
        simulator_control, lambda: create_tag(simulator_client, "user", "tag100"), 429, 8, "limit of 100 tags"
    )
    assert body["message"] == documented(QUOTA, "organization has reached its limit of 100 tags")


# --- smart contract interfaces: notes is required, "" when none was given ------------------------------


def test_smart_contract_interfaces_carry_notes_even_when_none_was_given(simulator_client, turnkey_client):
    params = {
        "smartContractAddress": "0x" + "ab" * 20,
        "smartContractInterface": "[]",
        "type": "SMART_CONTRACT_INTERFACE_TYPE_ETHEREUM",
        "label": "no notes",
    }
    op, kind = "create_smart_contract_interface", "ACTIVITY_TYPE_CREATE_SMART_CONTRACT_INTERFACE"
    bare = result_of(simulator_client.submit(op, kind, params), "createSmartContractInterfaceResult")
    noted = result_of(
        simulator_client.submit(op, kind, {**params, "label": "noted", "notes": "erc20"}),
        "createSmartContractInterfaceResult",
    )
    listed = ok(simulator_client.query("list_smart_contract_interfaces"))["smartContractInterfaces"]
    assert {s["label"]: s["notes"] for s in listed} == {"no notes": "", "noted": "erc20"}
    one = ok(simulator_client.query("get_smart_contract_interface", **bare))["smartContractInterface"]
    assert one["notes"] == ""
    T = pytest.importorskip("turnkey_sdk_types")
    parsed = turnkey_client.get_smart_contract_interfaces(T.GetSmartContractInterfacesBody())  # notes is required
    assert {s.smartContractInterfaceId: s.notes for s in parsed.smartContractInterfaces} == {
        bare["smartContractInterfaceId"]: "",
        noted["smartContractInterfaceId"]: "erc20",
    }
