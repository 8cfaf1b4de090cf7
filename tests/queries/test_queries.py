"""The query interface: every read returns the service's shapes, with [] for empty lists."""

from __future__ import annotations

import pytest
from conftest import DEFAULTS, ETH_ACCOUNT, ok, result_of
from support import assert_error

from simulator.testing import ApiKeyStamper, SimulatorClient

ADDRESS = "0x9858EfFD232B4033E47d90003D41EC34EcaEda94"  # the first Ethereum account of "abandon ... about"
# org-rich: a known wallet, a tagged private key and balances; org-no-beta: no balance access
with_rich = pytest.mark.simulator_scenario("../scenarios/rich_organization.yaml")


@pytest.fixture
def rich(simulator_user):
    return simulator_user("Owner")


def test_whoami_names_the_caller(client):
    assert ok(client.query("whoami")) == {
        "organizationId": DEFAULTS["organizationId"],
        "organizationName": DEFAULTS["organizationName"],
        "userId": DEFAULTS["userId"],
        "username": DEFAULTS["userName"],
    }


@pytest.mark.parametrize(
    "op, key",
    [
        ("list_private_keys", "privateKeys"),
        ("list_private_key_tags", "privateKeyTags"),
        ("list_fiat_on_ramp_credentials", "fiatOnRampCredentials"),
        ("list_wallets", "wallets"),
        ("list_wallet_accounts", "accounts"),
        ("list_policies", "policies"),
        ("list_user_tags", "userTags"),
        ("list_activities", "activities"),
    ],
)
def test_empty_lists_are_empty_arrays(client, op, key):
    assert ok(client.query(op)) == {key: []}


@with_rich
def test_scenario_wallets_keys_and_tags_are_listed(rich):
    accounts = ok(rich.query("list_wallet_accounts", includeWalletDetails=True))["accounts"]
    assert accounts[0]["address"] == ADDRESS
    assert accounts[0]["walletDetails"]["walletName"] == "Known"
    key = ok(rich.query("list_private_keys"))["privateKeys"][0]
    assert key["addresses"] == [
        {"format": "ADDRESS_FORMAT_ETHEREUM", "address": "0x7E5F4552091A69125d5DfCb7b8C2659029395Bdf"}
    ]
    tags = ok(rich.query("list_private_key_tags"))["privateKeyTags"]
    assert [(t["tagName"], t["tagType"]) for t in tags] == [("hot", "TAG_TYPE_PRIVATE_KEY")]
    assert key["privateKeyTags"] == [tags[0]["tagId"]] and (key["exported"], key["imported"]) == (False, False)


@with_rich
def test_balances_come_from_the_scenario_and_skip_zeros(rich):
    balances = ok(rich.query("get_wallet_address_balances", address=ADDRESS, caip2="eip155:1"))["balances"]
    assert [(b["symbol"], b["balance"], b["display"]["usd"]) for b in balances] == [
        ("ETH", "1500000000000000000", "4500.00")
    ]
    assert ok(rich.query("get_wallet_address_balances", address=ADDRESS, caip2="eip155:137")) == {"balances": []}


@with_rich
def test_balances_refuse_networks_outside_the_six(rich):
    body = assert_error(rich.query("get_wallet_address_balances", address=ADDRESS, caip2="eip155:56"), 400, 3)
    assert body["details"][1]["fieldViolations"][0]["field"] == "$.caip2"


@with_rich
def test_balances_need_beta_access(rich):
    other = SimulatorClient(rich.base_url, ApiKeyStamper("e2" * 32), "org-no-beta")
    assert_error(other.query("get_wallet_address_balances", address=ADDRESS, caip2="eip155:1"), 403, 7, "beta")


def test_list_activities_filters_and_paginates(client):
    ids = []
    for i in range(3):
        ids.append(
            ok(client.submit("create_wallet", "ACTIVITY_TYPE_CREATE_WALLET", {"walletName": f"w{i}", "accounts": []}))[
                "activity"
            ]["id"]
        )
    ok(client.submit("create_user_tag", "ACTIVITY_TYPE_CREATE_USER_TAG", {"userTagName": "t", "userIds": []}))
    wallets = ok(client.query("list_activities", filterByType=["ACTIVITY_TYPE_CREATE_WALLET"]))["activities"]
    assert [a["id"] for a in wallets] == ids[::-1]
    page = ok(
        client.query(
            "list_activities",
            filterByType=["ACTIVITY_TYPE_CREATE_WALLET"],
            paginationOptions={"limit": "1", "after": ids[2]},
        )
    )["activities"]
    assert [a["id"] for a in page] == [ids[1]]
    done = ok(client.query("list_activities", filterByStatus=["ACTIVITY_STATUS_COMPLETED"]))["activities"]
    assert len(done) == 4
    assert ok(client.query("list_activities", filterByStatus=["ACTIVITY_STATUS_FAILED"]))["activities"] == []


def test_get_activity_of_an_unknown_id_is_not_found(client):
    missing = "00000000-0000-4000-8000-0000000000a1"  # well formed: a malformed id is 400 (tests/handler_support/test_documented_limits.py)
    assert_error(client.query("get_activity", activityId=missing), 404, 5, f"no activity found with id {missing}")


def test_get_wallet_and_user_by_id(client):
    wallet_id = result_of(
        client.submit(
            "create_wallet", "ACTIVITY_TYPE_CREATE_WALLET", {"walletName": "solo", "accounts": [ETH_ACCOUNT]}
        ),
        "createWalletResult",
    )["walletId"]
    assert ok(client.query("get_wallet", walletId=wallet_id))["wallet"]["walletName"] == "solo"
    assert ok(client.query("get_user", userId=DEFAULTS["userId"]))["user"]["userEmail"] == DEFAULTS["userEmail"]
    assert_error(
        client.query("get_wallet", walletId="00000000-0000-4000-8000-0000000000a2"),
        404,
        5,
        "wallet 00000000-0000-4000-8000-0000000000a2 not found",
    )
