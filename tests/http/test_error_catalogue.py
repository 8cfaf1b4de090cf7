"""Turnkey's error catalogue (https://docs.turnkey.com/api-reference/overview/errors), row by row, through HTTP.

tests/http/error_catalogue.yaml holds each documented error, its trigger and the answer expected; every row
with a trigger is sent here and must get its status, gRPC code and a message that starts with the
catalogue's (or, for a row decided otherwise, the answer the table gives). The same table is the
reference page's (docs/reference/errors.md, tools/error_catalogue.py).
"""

from __future__ import annotations

import base64
import json
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import cbor2
import pytest
import yaml
from conftest import DEFAULTS, ETH_ACCOUNT, new_user, ok, result_of
from support import EMAIL, ClientKey, create_policy, new_wallet, sub_org

from simulator.crypto.keys import compressed_hex, new_ec_key
from simulator.testing import ApiKeyStamper, PasskeyStamper, Response, SimulatorClient

TABLE = Path(__file__).with_name("error_catalogue.yaml")
ROWS: list[dict[str, Any]] = yaml.safe_load(TABLE.read_text())
GRPC = {
    "InvalidArgument": 3,
    "Unauthenticated": 16,
    "PermissionDenied": 7,
    "NotFound": 5,
    "ResourceExhausted": 8,
    "Internal": 13,
}
VERDICTS = ("matched", "decided", "not applicable")
ORG = DEFAULTS["organizationId"]
UNKNOWN_ORG = "5f1c0c5e-0000-4000-8000-0000000dead0"
STRANGER_KEY = "5e" * 32  # no organization has it


class Case:
    """What a trigger may use: the running simulator, the default organization's client, a temp dir."""

    def __init__(self, server: Any, client: SimulatorClient, tmp_path: Path) -> None:
        self.server, self.client, self.tmp_path = server, client, tmp_path

    def as_(self, stamper: Any, org: str = ORG) -> SimulatorClient:
        return SimulatorClient(self.server.url, stamper, org)

    def key_client(self, org: str = ORG) -> tuple[SimulatorClient, dict[str, str]]:
        """A new P-256 key: a client stamping with it, and the apiKeys entry that registers it."""
        key = new_ec_key(self.server.simulator.source, "p256")
        stamper = ApiKeyStamper(f"{key.private_numbers().private_value:064x}")
        entry = {"apiKeyName": "k", "publicKey": compressed_hex(key), "curveType": "API_KEY_CURVE_P256"}
        return self.as_(stamper, org), entry

    def scenario(self, text: str) -> None:
        path = self.tmp_path / "rules.yaml"
        path.write_text(text)
        self.server.simulator.use_scenarios([path])


Trigger = Callable[[Case], Response]
STRICT_EMAIL = (
    "include: [default]\nstrictEmail: true\n"  # e-mail domains that receive no mail refused, as the service does
)


@pytest.fixture
def strict_email(simulator: Any, tmp_path: Path) -> None:
    """The default scenario read as strictly as the service reads e-mail addresses (``strictEmail: true``)."""
    path = tmp_path / "strict_email.yaml"
    path.write_text(STRICT_EMAIL)
    simulator.simulator.use_scenarios([path])


TRIGGERS: dict[str, Trigger] = {}


def trigger(fn: Trigger) -> Trigger:
    TRIGGERS[fn.__name__] = fn
    return fn


def wallet_id(c: Case) -> str:
    return str(new_wallet(c.client, "catalogue", [ETH_ACCOUNT])["walletId"])


def accounts(c: Case, **account: Any) -> Response:
    merged = {k: v for k, v in {**ETH_ACCOUNT, "path": "m/44'/60'/0'/0/7", **account}.items() if v is not None}
    params = {"walletId": wallet_id(c), "accounts": [merged]}
    return c.client.submit("create_wallet_accounts", "ACTIVITY_TYPE_CREATE_WALLET_ACCOUNTS", params)


def raw_payload(c: Case, **fields: str) -> Response:
    address = new_wallet(c.client, "signer", [ETH_ACCOUNT])["addresses"][0]
    params = {
        "signWith": address,
        "payload": "68656c6c6f",
        "encoding": "PAYLOAD_ENCODING_HEXADECIMAL",
        "hashFunction": "HASH_FUNCTION_KECCAK256",
        **fields,
    }
    return c.client.submit("sign_raw_payload", "ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2", params)


def authenticators(c: Case, entries: list[dict[str, Any]]) -> Response:
    params = {"userId": DEFAULTS["userId"], "authenticators": entries}
    return c.client.submit("create_authenticators", "ACTIVITY_TYPE_CREATE_AUTHENTICATORS_V2", params)


def passkey_entry(stamper: PasskeyStamper, **attestation: Any) -> dict[str, Any]:
    return {
        "authenticatorName": "catalogue",
        "challenge": "Y2F0YWxvZ3Vl",
        "attestation": {**stamper.attestation("Y2F0YWxvZ3Vl"), **attestation},
    }


def passkey(n: int) -> PasskeyStamper:
    return PasskeyStamper(base64.urlsafe_b64encode(bytes([n]) * 16).decode().rstrip("="), f"{n + 1:064x}")


def email_auth(c: Case, **customization: str) -> Response:
    child, _ = sub_org(c.client)
    params = {
        "email": EMAIL,
        "targetPublicKey": "04" + "11" * 64,
        "emailCustomization": {"appName": "Catalogue", **customization},
    }
    return c.client.submit("email_auth", "ACTIVITY_TYPE_EMAIL_AUTH_V3", params, organizationId=child)


def users(c: Case, **user: Any) -> Response:
    entry = {"userName": "Catalogue", "apiKeys": [], "authenticators": [], "oauthProviders": [], "userTags": [], **user}
    return c.client.submit("create_users", "ACTIVITY_TYPE_CREATE_USERS_V3", {"users": [entry]})


def exchange(c: Case, **fields: str) -> Response:
    params = {
        "oauth2CredentialId": "00000000-0000-4000-8000-000000000010",
        "authCode": "code",
        "redirectUri": "http://localhost:3000/callback",
        "codeVerifier": "verifier",
        **fields,
    }
    return c.client.submit("oauth2_authenticate", "ACTIVITY_TYPE_OAUTH2_AUTHENTICATE", params)


def sub_org_params(**changes: Any) -> dict[str, Any]:
    user = {"userName": "Root", "apiKeys": [], "authenticators": [], "oauthProviders": []}
    return {
        "subOrganizationName": "catalogue",
        "rootUsers": [user],
        "rootQuorumThreshold": 1,
        "wallet": {"walletName": "Default", "accounts": [ETH_ACCOUNT]},
        **changes,
    }


def create_sub_org(c: Case, **changes: Any) -> Response:
    return c.client.submit(
        "create_sub_organization", "ACTIVITY_TYPE_CREATE_SUB_ORGANIZATION_V7", sub_org_params(**changes)
    )


def whoami_with(c: Case, headers: dict[str, str]) -> Response:
    raw = json.dumps({"organizationId": ORG}).encode()
    return c.as_(None).post("/public/v1/query/whoami", raw, headers)


# --- the triggers, one per request the table names ------------------------------------------------


@trigger
def malformed_organization_id(c: Case) -> Response:
    return c.client.query("list_wallets", organizationId="not-a-uuid")


@trigger
def bad_request_body(c: Case) -> Response:
    return c.client.post("/public/v1/submit/create_wallet", b"{not json")


@trigger
def unknown_organization(c: Case) -> Response:
    return c.client.query("list_wallets", organizationId=UNKNOWN_ORG)


@trigger
def duplicate_policy_label(c: Case) -> Response:
    ok(create_policy(c.client, "once", "true"))
    return create_policy(c.client, "once", "true")


@trigger
def invalid_policy_consensus(c: Case) -> Response:
    return create_policy(c.client, "consensus", "true", consensus="approvers.any(((")


@trigger
def invalid_policy_condition(c: Case) -> Response:
    return create_policy(c.client, "condition", "activity.type == (((")


@trigger
def zero_quorum_threshold(c: Case) -> Response:
    return create_sub_org(c, rootQuorumThreshold=0)


@trigger
def quorum_users_missing(c: Case) -> Response:
    return create_sub_org(c, rootUsers=[])


@trigger
def invalid_api_key_expiration(c: Case) -> Response:
    _, entry = c.key_client()
    params = {"userId": DEFAULTS["userId"], "apiKeys": [{**entry, "expirationSeconds": "soon"}]}
    return c.client.submit("create_api_keys", "ACTIVITY_TYPE_CREATE_API_KEYS_V2", params)


@trigger
def missing_attestation(c: Case) -> Response:
    return authenticators(c, [{"authenticatorName": "catalogue", "challenge": "Y2F0YWxvZ3Vl"}])


@trigger
def invalid_attestation(c: Case) -> Response:
    return authenticators(c, [passkey_entry(passkey(1), attestationObject="bm90LWNib3I")])


@trigger
def missing_attestation_auth_data(c: Case) -> Response:
    short = cbor2.dumps({"fmt": "none", "attStmt": {}, "authData": b"short"})
    encoded = base64.urlsafe_b64encode(short).decode().rstrip("=")
    return authenticators(c, [passkey_entry(passkey(2), attestationObject=encoded)])


@trigger
def missing_wallet_params(c: Case) -> Response:
    return create_sub_org(c, wallet={"accounts": [ETH_ACCOUNT]})


@trigger
def invalid_path_format(c: Case) -> Response:
    return accounts(c, pathFormat="PATH_FORMAT_X")


@trigger
def invalid_path(c: Case) -> Response:
    return accounts(c, path=ETH_ACCOUNT["path"])  # the wallet derived it when it was created


@trigger
def invalid_address_format(c: Case) -> Response:
    return accounts(c, addressFormat="ADDRESS_FORMAT_X")


@trigger
def invalid_curve(c: Case) -> Response:
    return accounts(c, curve="CURVE_X")


@trigger
def curve_required(c: Case) -> Response:
    return accounts(c, curve=None)


@trigger
def invalid_payload_encoding(c: Case) -> Response:
    return raw_payload(c, encoding="PAYLOAD_ENCODING_X")


@trigger
def invalid_hash_function(c: Case) -> Response:
    return raw_payload(c, hashFunction="HASH_FUNCTION_X")


@trigger
def invalid_magic_link_template(c: Case) -> Response:
    return email_auth(c, magicLinkTemplate="https://app.example/login")


@trigger
def template_variables_not_json(c: Case) -> Response:
    return email_auth(c, templateVariables="{not json")


@trigger
def organization_mismatch(c: Case) -> Response:
    child_client, entry = c.key_client()
    child_client.organization_id, _ = sub_org(c.client, apiKeys=[entry])
    made = child_client.submit("create_wallet", "ACTIVITY_TYPE_CREATE_WALLET", {"walletName": "x", "accounts": []})
    params = {"fingerprint": ok(made)["activity"]["fingerprint"]}
    return c.client.submit("approve_activity", "ACTIVITY_TYPE_APPROVE_ACTIVITY", params)


@trigger
def invalid_wallet_account_uuid(c: Case) -> Response:
    params = {"walletAccountIds": ["not-a-uuid"], "deleteWithoutExport": True}
    return c.client.submit("delete_wallet_accounts", "ACTIVITY_TYPE_DELETE_WALLET_ACCOUNTS", params)


@trigger
def wallet_account_of_another_organization(c: Case) -> Response:
    child, _ = sub_org(c.client)
    wallets = ok(c.client.query("list_wallets", organizationId=child))["wallets"]
    account = ok(c.client.query("list_wallet_accounts", organizationId=child, walletId=wallets[0]["walletId"]))
    params = {"walletAccountIds": [account["accounts"][0]["walletAccountId"]], "deleteWithoutExport": True}
    return c.client.submit("delete_wallet_accounts", "ACTIVITY_TYPE_DELETE_WALLET_ACCOUNTS", params)


@trigger
def wallet_account_not_exported(c: Case) -> Response:
    wallet = wallet_id(c)
    account = ok(c.client.query("list_wallet_accounts", walletId=wallet))["accounts"][0]["walletAccountId"]
    params = {"walletAccountIds": [account]}
    return c.client.submit("delete_wallet_accounts", "ACTIVITY_TYPE_DELETE_WALLET_ACCOUNTS", params)


@trigger
def invalid_oidc_token(c: Case) -> Response:
    _, entry = c.key_client()
    params = {"oidcToken": "abc", "publicKey": entry["publicKey"]}
    return c.client.submit("oauth_login", "ACTIVITY_TYPE_OAUTH_LOGIN", params)


@trigger
def invalid_email_address(c: Case) -> Response:
    return users(c, userEmail="not-an-email")


@trigger
def unreachable_email(c: Case) -> Response:
    c.scenario(STRICT_EMAIL)  # refused in the service's strictest reading only; accepted with a warning by default
    return users(c, userEmail="alice@mail.invalid")


@trigger
def auth_code_not_set(c: Case) -> Response:
    return exchange(c, authCode="")


@trigger
def code_verifier_not_set(c: Case) -> Response:
    return exchange(c, codeVerifier="")


@trigger
def oauth2_credential_id_not_set(c: Case) -> Response:
    return exchange(c, oauth2CredentialId="")


@trigger
def redirect_uri_not_set(c: Case) -> Response:
    return exchange(c, redirectUri="")


@trigger
def client_id_not_set(c: Case) -> Response:
    params = {"provider": "OAUTH2_PROVIDER_X", "clientId": "", "encryptedClientSecret": "00"}
    return c.client.submit("create_oauth2_credential", "ACTIVITY_TYPE_CREATE_OAUTH2_CREDENTIAL", params)


@trigger
def unstamped(c: Case) -> Response:
    return c.as_(None).submit("create_wallet", "ACTIVITY_TYPE_CREATE_WALLET", {"walletName": "x", "accounts": []})


@trigger
def unknown_api_key(c: Case) -> Response:
    return c.as_(ApiKeyStamper(STRANGER_KEY)).query("list_wallets")


@trigger
def bad_passkey_signature(c: Case) -> Response:
    _, value = PasskeyStamper(DEFAULTS["passkeyCredentialId"], DEFAULTS["passkeyPrivateKey"]).stamp(b"{}")
    return whoami_with(c, {"X-Stamp-WebAuthn": value})


@trigger
def unknown_passkey_whoami(c: Case) -> Response:
    return c.as_(passkey(3)).query("whoami")


@trigger
def unknown_api_key_whoami(c: Case) -> Response:
    return c.as_(ApiKeyStamper(STRANGER_KEY)).query("whoami")


@trigger
def passkey_in_two_sub_organizations(c: Case) -> Response:
    shared = passkey(4)
    for _ in range(2):
        sub_org(c.client, authenticators=[passkey_entry(shared)])
    return c.as_(shared).query("whoami")


@trigger
def api_key_in_two_sub_organizations(c: Case) -> Response:
    shared, entry = c.key_client()
    for _ in range(2):
        sub_org(c.client, apiKeys=[entry])
    return shared.query("whoami")


@trigger
def bad_api_key_signature(c: Case) -> Response:
    _, value = ApiKeyStamper(DEFAULTS["apiPrivateKey"]).stamp(b"{}")
    return whoami_with(c, {"X-Stamp": value})


@trigger
def expired_api_key(c: Case) -> Response:
    expiring, entry = c.key_client()
    params = {"userId": DEFAULTS["userId"], "apiKeys": [{**entry, "expirationSeconds": "60"}]}
    result_of(c.client.submit("create_api_keys", "ACTIVITY_TYPE_CREATE_API_KEYS_V2", params), "createApiKeysResult")
    c.server.simulator.clock.advance(61)
    return expiring.query("whoami")


@trigger
def malformed_activity_stamp(c: Case) -> Response:
    _, api = ApiKeyStamper(DEFAULTS["apiPrivateKey"]).stamp(b"{}")
    _, webauthn = PasskeyStamper(DEFAULTS["passkeyCredentialId"], DEFAULTS["passkeyPrivateKey"]).stamp(b"{}")
    return whoami_with(c, {"X-Stamp": api, "X-Stamp-WebAuthn": webauthn})


@trigger
def unreadable_webauthn_stamp(c: Case) -> Response:
    return whoami_with(c, {"X-Stamp-WebAuthn": "{not json"})


@trigger
def unreadable_api_key_stamp(c: Case) -> Response:
    return whoami_with(c, {"X-Stamp": "%%%"})


@trigger
def parent_writes_to_sub_organization(c: Case) -> Response:
    child, _ = sub_org(c.client)
    params = {"walletName": "x", "accounts": []}
    return c.client.submit("create_wallet", "ACTIVITY_TYPE_CREATE_WALLET", params, organizationId=child)


@trigger
def unknown_passkey(c: Case) -> Response:
    return c.as_(passkey(5)).query("list_wallets")


@trigger
def unknown_fingerprint(c: Case) -> Response:
    params = {"fingerprint": "sha256:" + "cd" * 32}
    return c.client.submit("approve_activity", "ACTIVITY_TYPE_APPROVE_ACTIVITY", params)


@trigger
def eleven_authenticators(c: Case) -> Response:
    return authenticators(c, [passkey_entry(passkey(10 + n)) for n in range(11)])


@trigger
def eleven_long_lived_api_keys(c: Case) -> Response:
    keys = [{**c.key_client()[1], "apiKeyName": f"k{n}"} for n in range(11)]
    params = {"userId": DEFAULTS["userId"], "apiKeys": keys}
    return c.client.submit("create_api_keys", "ACTIVITY_TYPE_CREATE_API_KEYS_V2", params)


@trigger
def eleventh_expiring_api_key(c: Case) -> Response:
    user = new_user(c.client, "Expiring")

    def add(n: int) -> Response:
        entry = {**c.key_client()[1], "apiKeyName": f"e{n}", "expirationSeconds": "3600"}
        params = {"userId": user, "apiKeys": [entry]}
        return c.client.submit("create_api_keys", "ACTIVITY_TYPE_CREATE_API_KEYS_V2", params)

    first = result_of(add(0), "createApiKeysResult")["apiKeyIds"][0]
    for n in range(1, 10):
        c.server.simulator.clock.advance(1)
        ok(add(n))
    eleventh = add(10)
    kept = ok(c.client.query("get_api_keys", userId=user))["apiKeys"]
    assert len(kept) == 10 and first not in {k["apiKeyId"] for k in kept}  # the oldest made room
    return eleventh


@trigger
def over_quota(c: Case) -> Response:
    entry = {"userName": "u", "apiKeys": [], "authenticators": [], "oauthProviders": [], "userTags": []}
    params = {"users": [{**entry, "userName": f"u{n}"} for n in range(101)]}
    return c.client.submit("create_users", "ACTIVITY_TYPE_CREATE_USERS_V3", params)


@trigger
def rate_limited(c: Case) -> Response:
    c.scenario(
        "include: [default]\nrules:\n  - name: throttled\n    match: {type: CREATE_WALLET}\n    outcome: rateLimited\n"
    )
    return c.client.submit("create_wallet", "ACTIVITY_TYPE_CREATE_WALLET", {"walletName": "x", "accounts": []})


@trigger
def parent_rate_limited(c: Case) -> Response:
    c.scenario(
        "include: [default]\nrules:\n  - name: shared\n    match: {type: CREATE_WALLET}\n"
        "    outcome: rateLimited\n    budget: {requests: 1, seconds: 60, per: parent}\n"
    )
    child_client, entry = c.key_client()
    child, _ = sub_org(c.client, apiKeys=[entry])
    child_client.organization_id = child
    ok(c.client.submit("create_wallet", "ACTIVITY_TYPE_CREATE_WALLET", {"walletName": "p", "accounts": []}))
    return child_client.submit("create_wallet", "ACTIVITY_TYPE_CREATE_WALLET", {"walletName": "x", "accounts": []})


@trigger
def unparseable_transaction(c: Case) -> Response:
    address = new_wallet(c.client, "signer", [ETH_ACCOUNT])["addresses"][0]
    params = {"signWith": address, "unsignedTransaction": "02ff", "type": "TRANSACTION_TYPE_ETHEREUM"}
    return c.client.submit("sign_transaction", "ACTIVITY_TYPE_SIGN_TRANSACTION_V2", params)


# --- the tests -------------------------------------------------------------------------------------


def expected(row: dict[str, Any]) -> dict[str, Any]:
    """The answer a row expects: its own ``answer``, else the catalogue's status, code and message."""
    if "answer" in row:
        return dict(row["answer"])
    return {"status": row["status"], "code": GRPC[row["grpc"]], "starts": row["message"]}


TRIGGERED = [pytest.param(row, id=row["message"][:60]) for row in ROWS if "trigger" in row]


@pytest.mark.parametrize("row", TRIGGERED)
def test_each_documented_error_on_its_trigger(row, simulator, simulator_client, frozen_clock, tmp_path):
    answer = TRIGGERS[row["trigger"]](Case(simulator, simulator_client, tmp_path))
    want = expected(row)
    assert answer.status == want["status"], answer.body
    if want["status"] == 200:
        return
    body = answer.body
    assert set(body) == {"code", "message", "details", "turnkeyErrorCode"}, body
    assert body["code"] == want["code"], body
    if "starts" in want:
        assert body["message"].startswith(want["starts"]), body["message"]
    if "contains" in want:
        assert want["contains"] in body["message"], body["message"]


def test_the_table_is_complete_and_each_verdict_is_explained():
    assert len(ROWS) == len({r["message"] for r in ROWS})  # one row per documented message
    for row in ROWS:
        assert row["verdict"] in VERDICTS, row
        if row["verdict"] == "not applicable":
            assert row.get("reason") and "trigger" not in row, row
        else:
            assert row["trigger"] in TRIGGERS and row.get("how"), row
        if row["verdict"] == "decided":
            assert row.get("reason") and row.get("answer"), row
        if "grpc" in row:
            assert row["grpc"] in GRPC and row["status"] in (400, 401, 403, 404, 429, 500), row
    assert set(TRIGGERS) == {r["trigger"] for r in ROWS if "trigger" in r}  # no trigger without a row


# --- the four requests the simulator once accepted, through the official clients --------------------

REFUSED = {  # what each official-client test sends, and the catalogue's message it must start with
    "invalidEmail": "invalid email address",
    "unreachableEmail": "could not reach email",
    "emptyClientId": "client_id must be set",
    "templateVariables": "failed to unmarshal template variables",
}


def python_refusal(call: Callable[[], Any]) -> Any:
    T = pytest.importorskip("turnkey_sdk_types")
    with pytest.raises(T.TurnkeyNetworkError) as raised:
        call()
    return raised.value


@pytest.mark.parametrize(
    "email, message", [("not-an-email", REFUSED["invalidEmail"]), ("alice@mail.test", REFUSED["unreachableEmail"])]
)
def test_the_python_client_sees_an_email_address_refused(
    strict_email, turnkey_client, simulator_control, email, message
):
    T = pytest.importorskip("turnkey_sdk_types")
    user = T.v1UserParamsV3(
        userName="py", userEmail=email, apiKeys=[], authenticators=[], oauthProviders=[], userTags=[]
    )
    before = json.dumps(simulator_control.state(), sort_keys=True)
    error = python_refusal(lambda: turnkey_client.create_users(T.CreateUsersBody(users=[user])))
    assert error.status_code == 400 and message in str(error)
    assert json.dumps(simulator_control.state(), sort_keys=True) == before  # a refused request changes nothing


def test_the_python_client_sees_an_empty_client_id_refused(turnkey_client):
    T = pytest.importorskip("turnkey_sdk_types")
    body = T.CreateOauth2CredentialBody(provider="OAUTH2_PROVIDER_X", clientId="", encryptedClientSecret="00")
    error = python_refusal(lambda: turnkey_client.create_oauth2_credential(body))
    assert error.status_code == 400 and REFUSED["emptyClientId"] in str(error)


def test_the_python_client_sees_template_variables_that_are_not_json_refused(turnkey_client, simulator_client):
    T = pytest.importorskip("turnkey_sdk_types")
    child, _ = sub_org(simulator_client)
    body = T.EmailAuthBody(
        organizationId=child,
        email=EMAIL,
        targetPublicKey=ClientKey().uncompressed,
        emailCustomization=T.v1EmailAuthCustomizationParams(appName="Catalogue", templateVariables="{not json"),
    )
    error = python_refusal(lambda: turnkey_client.email_auth(body))
    assert error.status_code == 400 and REFUSED["templateVariables"] in str(error)
    # JSON that is an object is what the service takes
    good = body.model_copy(
        update={
            "emailCustomization": T.v1EmailAuthCustomizationParams(
                appName="Catalogue", templateVariables='{"name": "Alice"}'
            )
        }
    )
    assert turnkey_client.email_auth(good).activity.status == "ACTIVITY_STATUS_COMPLETED"


JS = Path(__file__).resolve().parents[1] / "js"


@pytest.mark.skipif(
    not (shutil.which("node") and (JS / "node_modules").is_dir()),
    reason="node or tests/js/node_modules missing (npm ci --prefix tests/js)",
)
def test_the_js_client_sees_the_four_refusals(simulator, strict_email, simulator_client, simulator_credentials):
    child, _ = sub_org(simulator_client)
    ready = {**simulator_credentials, "url": simulator.url, "subOrganizationId": child}
    run = subprocess.run(
        ["node", str(JS / "catalogue_refusals.js"), json.dumps(ready)], capture_output=True, text=True, timeout=120
    )
    assert run.returncode == 0, run.stderr
    out = json.loads(run.stdout)
    for name, message in REFUSED.items():
        assert out[name] != "accepted", name
        assert message in out[name]["message"], out[name]


# --- the e-mail check, wherever the service keeps an address -----------------------------------------

ADDRESSES = [
    ("not-an-email", 400, "invalid email address", "INVALID_EMAIL"),
    ("a b@example.com", 400, "invalid email address", "INVALID_EMAIL"),
    ("alice@localhost", 400, "invalid email address", "INVALID_EMAIL"),  # no dot: no domain mail reaches
    ("alice@mail.test", 400, "could not reach email", "INVALID_FQDN"),
    ("alice@shop.example", 400, "could not reach email", "INVALID_FQDN"),
    ("alice@printer.local", 400, "could not reach email", "INVALID_FQDN"),
    ("alice@x.onion", 400, "could not reach email", "INVALID_FQDN"),
    ("alice@example.com", 200, "", ""),  # RFC 6761: applications treat example.com as any domain
    ("Alice.Smith+tag@Mail.Example.ORG", 200, "", ""),
]


@pytest.mark.parametrize("address, status, message, code", ADDRESSES)
def test_every_place_that_keeps_an_address_checks_it(
    strict_email, simulator_client, simulator_control, address, status, message, code
):
    c = simulator_client
    user = new_user(c, "Addressed")
    sends = {
        "create_users": lambda: users(Case(None, c, Path()), userEmail=address),
        "create_sub_organization": lambda: c.submit(
            "create_sub_organization",
            "ACTIVITY_TYPE_CREATE_SUB_ORGANIZATION_V7",
            sub_org_params(rootUsers=[{**sub_org_params()["rootUsers"][0], "userEmail": address}]),
        ),
        "update_user_email": lambda: c.submit(
            "update_user_email", "ACTIVITY_TYPE_UPDATE_USER_EMAIL", {"userId": user, "userEmail": address}
        ),
        "update_user": lambda: c.submit(
            "update_user", "ACTIVITY_TYPE_UPDATE_USER", {"userId": user, "userEmail": address}
        ),
    }
    for name, send in sends.items():
        before = json.dumps(simulator_control.state(), sort_keys=True)
        answer = send()
        assert answer.status == status, (name, answer.body)
        if status != 200:
            assert answer.body["message"].startswith(message) and answer.body["turnkeyErrorCode"] == code, answer.body
            assert json.dumps(simulator_control.state(), sort_keys=True) == before, name  # nothing changed
