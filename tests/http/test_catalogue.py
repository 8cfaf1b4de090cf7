"""The catalogue, the schemas and the public swagger agree; every implemented operation answers its example.

The example bodies in fixtures/requests name the objects of tests/scenarios/catalogue.yaml (the
default organization plus a known wallet, private key and users). An example that cannot succeed
there (it names an id only a previous request would have made) gets the refusal REFUSALS documents.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from conftest import ROOT
from support import assert_error

from simulator.operations import catalogue
from simulator.operations.catalogue import Kind, Status

SCHEMAS = ROOT / "schemas"
EXAMPLES = ROOT / "fixtures" / "requests"
SWAGGER = SCHEMAS / "source" / "public_api.swagger.json"  # Turnkey's public swagger (schemas/README.md)
KINDS = (Kind.SUBMIT, Kind.QUERY)

NOT_FOUND = (404, 5)
# operation -> (status, gRPC code, phrase): why its example is refused on the catalogue scenario
REFUSALS: dict[str, tuple[int, int, str]] = {
    "query/get_send_transaction_status": (*NOT_FOUND, "send transaction status"),
    "submit/approve_activity": (*NOT_FOUND, "No activity found with fingerprint"),
    "submit/reject_activity": (*NOT_FOUND, "No activity found with fingerprint"),
    "submit/delete_api_keys": (*NOT_FOUND, "api keys not found"),
    "submit/delete_authenticators": (*NOT_FOUND, "authenticators not found"),
    "submit/delete_policies": (*NOT_FOUND, "policies not found"),
    "submit/delete_wallet_accounts": (*NOT_FOUND, "wallet accounts not found"),
    "submit/update_oauth2_credential": (*NOT_FOUND, "oauth2 credential"),
    "submit/update_user_tag": (*NOT_FOUND, "user tags not found"),
    "submit/oauth2_authenticate": (*NOT_FOUND, "oauth2 credential"),
    "submit/otp_auth": (*NOT_FOUND, "OTP 00000000-0000-4000-8000-000000000060 not found"),
    "submit/delete_sub_organization": (400, 3, "is not a sub-organization"),
    "submit/import_wallet": (400, 3, "invalid encryptedBundle"),  # sealed to an import bundle of an earlier call
    "submit/import_private_key": (400, 3, "invalid encryptedBundle"),
    "submit/verify_otp": (400, 3, "has no encryption target"),
    "submit/otp_login": (400, 3, "invalid verification token"),
    "submit/oauth_login": (400, 3, "invalid OIDC token"),
    "submit/delete_smart_contract_interface": (*NOT_FOUND, "smart contract interface"),
    "submit/delete_user_tags": (*NOT_FOUND, "user tags not found"),
    "submit/remove_ip_allowlist": (*NOT_FOUND, "no IP allow-list is set"),
    "submit/delete_invitation": (*NOT_FOUND, "invitation not found"),
    "submit/create_authenticators": (400, 3, "invalid attestation"),  # a real passkey attestation names its challenge
    "submit/update_mfa_policy": (*NOT_FOUND, "MFA policy"),
    "submit/delete_mfa_policy": (*NOT_FOUND, "MFA policy"),
    "submit/update_webhook_endpoint": (*NOT_FOUND, "webhook endpoint"),
    "submit/delete_webhook_endpoint": (*NOT_FOUND, "webhook endpoint"),
    "submit/update_private_key_tag": (*NOT_FOUND, "private key tags not found"),
    "submit/delete_private_key_tags": (*NOT_FOUND, "private key tags not found"),
    "submit/update_policy": (*NOT_FOUND, "policy not found"),
    "submit/delete_policy": (*NOT_FOUND, "policy not found"),
    "query/get_mfa_policy": (*NOT_FOUND, "MFA policy"),
    "query/get_mfa_status": (*NOT_FOUND, "activity"),
    "query/get_activity": (*NOT_FOUND, "no activity found"),
    "query/get_policy_evaluations": (*NOT_FOUND, "no activity found"),
    "query/list_app_proofs": (*NOT_FOUND, "no activity found"),
    "query/get_api_key": (*NOT_FOUND, "api key"),
    "query/get_authenticator": (*NOT_FOUND, "authenticator"),
    "query/get_oauth2_credential": (*NOT_FOUND, "oauth2 credential"),
    "query/get_policy": (*NOT_FOUND, "policy"),
    "query/get_smart_contract_interface": (*NOT_FOUND, "smart contract interface"),
    "submit/delete_oauth_providers": (*NOT_FOUND, "oauth providers not found"),
    "submit/delete_oauth2_credential": (*NOT_FOUND, "oauth2 credential"),
    "submit/update_fiat_on_ramp_credential": (*NOT_FOUND, "fiat on-ramp credential"),
    "submit/delete_fiat_on_ramp_credential": (*NOT_FOUND, "fiat on-ramp credential"),
    "submit/oauth": (400, 3, "invalid OIDC token"),
    "submit/email_auth": (403, 7, "email_auth can only be initiated by a parent organization for a sub-organization"),
    "submit/init_user_email_recovery": (*NOT_FOUND, "no user with email alice@example.com"),
    "submit/recover_user": (403, 7, "recover_user must be stamped with user"),
    "submit/import_secrets": (400, 3, "invalid secrets[0].targetPublicKey"),
    "submit/export_secrets": (*NOT_FOUND, "secrets not found"),
    "submit/execute_swap": (*NOT_FOUND, "swap quote"),
    "submit/claim_swap_fees": (400, 3, "swaps are not configured for this organization"),
    "submit/earn_deposit": (*NOT_FOUND, "no Earn wrapper"),
    "submit/earn_withdraw": (*NOT_FOUND, "no Earn wrapper"),
    "submit/earn_set_wrapper_state": (*NOT_FOUND, "no Earn wrapper"),
    "submit/claim_earn_fees": (*NOT_FOUND, "no Earn wrapper"),
    "submit/spark_claim_transfer": (400, 3, "invalid signWith"),
    "submit/spark_prepare_lightning_receive": (400, 3, "invalid signWith"),
    "submit/spark_prepare_transfer": (400, 3, "invalid signWith"),
    "submit/spark_sign_frost": (400, 3, "invalid signWith"),
    "submit/create_tvc_deployment": (*NOT_FOUND, "TVC app"),
    "submit/create_tvc_manifest_approvals": (*NOT_FOUND, "TVC manifest"),
    "submit/delete_tvc_app_and_deployments": (*NOT_FOUND, "TVC app"),
    "submit/delete_tvc_deployment": (*NOT_FOUND, "TVC deployment"),
    "submit/post_tvc_quorum_key_share": (*NOT_FOUND, "TVC deployment"),
    "submit/re_encrypt_tvc_quorum_key_share": (*NOT_FOUND, "TVC deployment"),
    "submit/restore_tvc_deployment": (*NOT_FOUND, "TVC deployment"),
    "submit/set_tvc_app_live_deployment": (*NOT_FOUND, "TVC deployment"),
    "query/get_session_profile": (*NOT_FOUND, "session profile"),
    "query/get_onramp_transaction_status": (*NOT_FOUND, "on-ramp transaction"),
    "query/get_boot_proof": (*NOT_FOUND, "no boot proof for ephemeral key"),
    "query/get_latest_boot_proof": (*NOT_FOUND, "no boot proof yet"),
    "query/get_swap_status": (*NOT_FOUND, "swap request"),
    "query/get_claim_earn_fees_status": (*NOT_FOUND, "claim request"),
    "query/get_earn_deploy_status": (*NOT_FOUND, "deploy request"),
    "query/get_earn_deposit_status": (*NOT_FOUND, "deposit request"),
    "query/get_earn_withdraw_status": (*NOT_FOUND, "withdraw request"),
    "query/get_app_status": (*NOT_FOUND, "TVC app"),
    "query/get_tvc_app": (*NOT_FOUND, "TVC app"),
    "query/get_tvc_deployment": (*NOT_FOUND, "TVC deployment"),
    "query/get_tvc_deployment_debug_logs": (*NOT_FOUND, "TVC deployment"),
    "query/get_tvc_deployment_provisioning_details": (*NOT_FOUND, "TVC deployment"),
    "query/list_tvc_app_deployments": (*NOT_FOUND, "TVC app"),
}


def load(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def implemented(kind: Kind) -> list[str]:
    return [op.name for op in catalogue.of_kind(kind) if op.status is not Status.ABSENT]


IMPLEMENTED = [f"{kind.value}/{name}" for kind in KINDS for name in implemented(kind)]


def swagger() -> Any:
    if not SWAGGER.exists():
        pytest.skip("schemas/source/public_api.swagger.json is missing from this checkout")
    return load(SWAGGER)


# --- the catalogue, schemas/ and the swagger ---------------------------------------------------


@pytest.mark.parametrize("kind", KINDS, ids=lambda k: k.value)
def test_the_catalogue_the_schemas_and_the_swagger_name_the_same_operations(kind: Kind) -> None:
    declared = sorted(op.name for op in catalogue.of_kind(kind))
    assert len(declared) == len(set(declared)), "an operation is declared twice"
    assert sorted(p.stem for p in (SCHEMAS / kind.value).glob("*.json")) == declared
    assert sorted(p.stem for p in (SCHEMAS / "responses" / kind.value).glob("*.json")) == declared
    prefix = f"/public/v1/{kind.value}/"
    paths = [p.removeprefix(prefix) for p, ops in swagger()["paths"].items() if p.startswith(prefix) and "post" in ops]
    assert sorted(paths) == declared


def swagger_activity_types(document: Any, path: str) -> list[str]:
    """The `type` values the request definition of a submit path names (enum, else its description)."""
    body = next(p for p in document["paths"][path]["post"]["parameters"] if p.get("in") == "body")
    request = document["definitions"][body["schema"]["$ref"].rsplit("/", 1)[-1]]
    field = request["properties"]["type"]
    return list(field.get("enum") or re.findall(r"ACTIVITY_TYPE_[A-Z0-9_]+", field.get("description", "")))


@pytest.mark.parametrize("op", [op.name for op in catalogue.of_kind(Kind.SUBMIT)])
def test_every_activity_type_the_swagger_names_for_a_path_is_accepted(op: str) -> None:
    named = swagger_activity_types(swagger(), f"/public/v1/submit/{op}")
    schema = load(SCHEMAS / "submit" / f"{op}.json")
    assert named and set(named) <= set(schema["x-activity-types"]) == set(schema["properties"]["type"]["enum"])


# https://docs.turnkey.com/features/policies/language, "activity.resource" and "activity.action" (their values)
DOCUMENTED_RESOURCES = [
    "AUTH",
    "AUTH_PROXY",
    "CONFIG",
    "CREDENTIAL",
    "FIAT_TRANSACTION",
    "INVITATION",
    "MFA_POLICY",
    "ON_RAMP_CREDENTIALS",
    "ORGANIZATION",
    "OTP",
    "PAYMENT_METHOD",
    "POLICY",
    "PRIVATE_KEY",
    "RECOVERY",
    "SESSION_PROFILE",
    "SMART_CONTRACT_INTERFACE",
    "SPONSORSHIP",
    "SUBSCRIPTION",
    "TVC_*",
    "USER",
    "WALLET",
    "WEBHOOK_ENDPOINT",
]
DOCUMENTED_ACTIONS = set(["CREATE", "UPDATE", "DELETE", "SIGN", "EXPORT", "IMPORT", "VERIFY", "ENCRYPT"])


def documented_resources_and_actions() -> tuple[list[str], set[str]]:
    """The policy language's ``activity.resource`` and ``activity.action`` values, as its page lists them."""
    return DOCUMENTED_RESOURCES, DOCUMENTED_ACTIONS


def test_resources_and_actions_come_from_the_policy_language() -> None:
    resources, actions = documented_resources_and_actions()
    for op in catalogue.of_kind(Kind.SUBMIT):
        assert (op.resource is None) == (op.action is None), op.name
        if op.resource is not None:
            assert any(op.resource == r or (r.endswith("*") and op.resource.startswith(r[:-1])) for r in resources)
            assert op.action in actions, op.name


# --- every implemented operation through the HTTP surface --------------------------------------


def test_every_implemented_operation_has_an_example_and_refusals_name_only_those() -> None:
    missing = [key for key in IMPLEMENTED if not (EXAMPLES / f"{key}.json").exists()]
    assert missing == [], "add an example body to fixtures/requests for each"
    assert set(REFUSALS) <= set(IMPLEMENTED)


# operation -> what the strict response check finds wrong with its answer today (fixed: remove the entry)
CONTRACT_GAPS: dict[str, str] = {}


def post_example(client: Any, key: str) -> Any:
    kind, op = key.split("/")
    if not (EXAMPLES / f"{key}.json").exists():
        pytest.fail(f"{key} is implemented but has no example: add fixtures/requests/{key}.json", pytrace=False)
    body = load(EXAMPLES / f"{key}.json")
    if kind == "submit":
        return client.submit(op, body["type"], body["parameters"])
    fields = {k: v for k, v in body.items() if k != "organizationId"}
    return client.query(op, **fields)


@pytest.mark.simulator_scenario("../scenarios/catalogue.yaml")
@pytest.mark.parametrize("key", IMPLEMENTED)
def test_the_example_gets_a_200_or_its_documented_refusal(simulator: Any, simulator_client: Any, key: str) -> None:
    response = post_example(simulator_client, key)
    if key in CONTRACT_GAPS:
        assert response.status == 500, f"{key} now meets the contract: remove it from CONTRACT_GAPS"
        simulator.simulator.crashes.clear()  # kept by the strict check; the xfail names it
        pytest.xfail(CONTRACT_GAPS[key])
    if key in REFUSALS:
        assert_error(response, *REFUSALS[key])
        return
    assert response.status == 200, response.body
    activity = response.body.get("activity")
    if key.startswith("submit/"):
        assert activity["status"] == "ACTIVITY_STATUS_COMPLETED", activity
        assert activity["type"] == load(EXAMPLES / f"{key}.json")["type"]


# --- the strict response check itself ----------------------------------------------------------


@pytest.mark.parametrize("strict", [True, False])
def test_a_broken_answer_is_a_500_naming_the_violations_only_in_strict_mode(strict: bool) -> None:
    from simulator import Config
    from simulator.core import Simulator
    from simulator.testing import ApiKeyStamper, InProcessClient
    from simulator.web.app import create_app

    sim = Simulator(Config(seed=1, strict_responses=strict))
    credentials = sim.default_credentials()
    sim.store.org(credentials["organizationId"]).users[credentials["userId"]].name = 7  # type: ignore[assignment]
    client = InProcessClient(
        create_app(sim), ApiKeyStamper(credentials["apiPrivateKey"]), credentials["organizationId"]
    )
    response = client.query("whoami")
    if not strict:
        assert response.status == 200 and response.body["username"] == 7
        assert sim.crashes == []
        return
    body = assert_error(response, 500, 13, "query/whoami", "$.username: 7 breaks type 'string'")
    assert body["details"][1] == {
        "@type": "simulator/response-contract",
        "operation": "query/whoami",
        "violations": [{"field": "$.username", "description": "7 breaks type 'string'"}],
    }
    assert [c["path"] for c in sim.crashes] == ["/public/v1/query/whoami"]
    assert sim.journal.entries()[-1]["status"] == 500
