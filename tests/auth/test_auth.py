"""Stamps of every scheme, passkeys, and how credentials resolve across sub-organizations."""

from __future__ import annotations

import pytest
from conftest import DEFAULTS, ok
from support import assert_error

from simulator import Config, SimulatorServer
from simulator.testing import ApiKeyStamper, PasskeyStamper, SimulatorClient

PARENT, CHILD, OTHER_CHILD = "org-parent", "org-child", "org-child-2"
KEYS = {"parent": "a1" * 32, "child": "c1" * 32, "shared": "d1" * 32}

# org-parent with sub-organizations org-child (keys child and shared) and org-child-2 (key shared)
in_tree = pytest.mark.simulator_scenario("../scenarios/org_tree.yaml")


def as_key(server, key: str, org: str) -> SimulatorClient:
    return SimulatorClient(server.url, ApiKeyStamper(KEYS[key]), org)


@pytest.mark.parametrize(
    "curve, scheme",
    [("secp256k1", "SIGNATURE_SCHEME_TK_API_SECP256K1"), ("ed25519", "SIGNATURE_SCHEME_TK_API_ED25519")],
)
def test_secp256k1_and_ed25519_api_keys_stamp(client, simulator, curve, scheme):
    stamper = ApiKeyStamper("5a" * 32, curve)
    ok(
        client.submit(
            "create_api_keys",
            "ACTIVITY_TYPE_CREATE_API_KEYS_V2",
            {
                "userId": DEFAULTS["userId"],
                "apiKeys": [
                    {
                        "apiKeyName": curve,
                        "publicKey": stamper.public_key,
                        "curveType": f"API_KEY_CURVE_{curve.upper()}",
                    }
                ],
            },
        )
    )
    other = SimulatorClient(simulator.url, stamper, DEFAULTS["organizationId"])
    activity = ok(other.submit("create_wallet", "ACTIVITY_TYPE_CREATE_WALLET", {"walletName": curve, "accounts": []}))[
        "activity"
    ]
    assert activity["votes"][0]["scheme"] == scheme


def test_a_key_stamping_with_the_wrong_scheme_is_refused(client, simulator):
    stamper = ApiKeyStamper(DEFAULTS["apiPrivateKey"], "secp256k1")  # same scalar, other curve: unknown key
    other = SimulatorClient(simulator.url, stamper, DEFAULTS["organizationId"])
    assert_error(other.query("whoami"), 401, 16, "could not find public key")


def test_the_default_passkey_stamps_requests(simulator):
    passkey = PasskeyStamper(DEFAULTS["passkeyCredentialId"], DEFAULTS["passkeyPrivateKey"])
    client = SimulatorClient(simulator.url, passkey, DEFAULTS["organizationId"])
    assert ok(client.query("whoami"))["userId"] == DEFAULTS["userId"]
    activity = ok(client.submit("create_wallet", "ACTIVITY_TYPE_CREATE_WALLET", {"walletName": "pk", "accounts": []}))[
        "activity"
    ]
    assert activity["votes"][0]["publicKey"].startswith(("02", "03"))


def test_a_passkey_assertion_over_other_bytes_is_refused(simulator):
    passkey = PasskeyStamper(DEFAULTS["passkeyCredentialId"], DEFAULTS["passkeyPrivateKey"])
    client = SimulatorClient(simulator.url, None, DEFAULTS["organizationId"])
    _, value = passkey.stamp(b"{}")
    assert_error(
        client.post(
            "/public/v1/query/whoami",
            b'{"organizationId": "%s"}' % DEFAULTS["organizationId"].encode(),
            {"X-Stamp-WebAuthn": value},
        ),
        401,
        16,
        "could not verify WebAuthN signature",
    )


def test_an_unknown_passkey_is_not_found(simulator):
    """whoami (the lookup across sub-organizations) answers the error catalogue's 401/16 since issue 36;
    a request to an organization keeps 404/5. Both keep the older words after the catalogue's."""
    client = SimulatorClient(simulator.url, PasskeyStamper("bm9wZQ", "77" * 32), DEFAULTS["organizationId"])
    body = assert_error(
        client.query("whoami"), 401, 16, "webauthn authenticator not found in organization or parent organization"
    )
    assert body["message"].startswith("credential ID could not be found in organization or its parent organization")
    assert_error(
        client.query("list_wallets"), 404, 5, "webauthn authenticator not found in organization or parent organization"
    )


def test_stamp_header_names_are_case_insensitive(client):
    raw = b'{"organizationId": "%s"}' % DEFAULTS["organizationId"].encode()
    _, value = client.stamper.stamp(raw)
    unstamped = SimulatorClient(client.base_url, None, DEFAULTS["organizationId"])
    assert ok(unstamped.post("/public/v1/query/whoami", raw, {"x-stamp": value}))["userId"] == DEFAULTS["userId"]


@in_tree
def test_sub_org_credential_on_the_parent_resolves_to_the_sub_org(simulator):
    who = ok(as_key(simulator, "child", PARENT).query("whoami"))
    assert (who["organizationId"], who["organizationName"], who["username"]) == (CHILD, "Child", "Child Root")
    activity = ok(
        as_key(simulator, "child", PARENT).submit(
            "create_wallet", "ACTIVITY_TYPE_CREATE_WALLET", {"walletName": "sub", "accounts": []}
        )
    )["activity"]
    assert activity["organizationId"] == CHILD
    polled = ok(as_key(simulator, "parent", PARENT).query("get_activity", activityId=activity["id"]))["activity"]
    assert polled["id"] == activity["id"]


@in_tree
def test_parent_credential_reads_a_sub_org_but_cannot_write_to_it(simulator):
    parent_on_child = as_key(simulator, "parent", CHILD)
    assert ok(parent_on_child.query("list_users"))["users"][0]["userName"] == "Child Root"
    assert_error(
        parent_on_child.submit("create_wallet", "ACTIVITY_TYPE_CREATE_WALLET", {"walletName": "x", "accounts": []}),
        403,
        7,
        "request not authorized",
    )


@in_tree
def test_a_key_in_two_sub_orgs_is_ambiguous_on_the_parent(simulator):
    assert_error(
        as_key(simulator, "shared", PARENT).query("whoami"),
        401,
        16,
        "more than one suborg associated with a public key",
    )
    assert ok(as_key(simulator, "shared", OTHER_CHILD).query("whoami"))["organizationId"] == OTHER_CHILD


def test_auth_off_trusts_every_request():
    with SimulatorServer(config=Config(auth="off")) as server:
        anyone = SimulatorClient(server.url, None, DEFAULTS["organizationId"])
        assert ok(anyone.query("whoami"))["userId"] == DEFAULTS["userId"]
        forged = SimulatorClient(server.url, ApiKeyStamper("99" * 32), DEFAULTS["organizationId"])
        activity = ok(
            forged.submit("create_wallet", "ACTIVITY_TYPE_CREATE_WALLET", {"walletName": "x", "accounts": []})
        )
        assert activity["activity"]["status"] == "ACTIVITY_STATUS_COMPLETED"
