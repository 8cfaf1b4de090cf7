"""The client version matrix's backend script for Turnkey's Python client: whichever turnkey-http
is first on the path (tests/clients/test_client_matrix.py puts each release's own install there)
drives the steps tests/js/matrix.js runs, and prints {package, version, steps} as JSON.

Usage: python client_matrix_driver.py '<JSON: version, url, organizationId, userId, apiPublicKey,
apiPrivateKey, email>'. Bodies are built from plain dicts through the release's own pydantic models
(model_validate), so one script fits every release's generated types.
"""

from __future__ import annotations

import base64
import itertools
import json
import sys
import time
import traceback
from collections.abc import Callable
from importlib.metadata import version as installed_version
from typing import Any

import requests
import rlp
import turnkey_http
import turnkey_sdk_types as T
from eth_account import Account
from eth_account.messages import encode_defunct
from eth_utils import keccak
from support import ClientKey, seal_to_target
from turnkey_api_key_stamper import ApiKeyStamper, ApiKeyStamperConfig

given = json.loads(sys.argv[1])
ETH = {
    "curve": "CURVE_SECP256K1",
    "pathFormat": "PATH_FORMAT_BIP32",
    "path": "m/44'/60'/0'/0/0",
    "addressFormat": "ADDRESS_FORMAT_ETHEREUM",
}
APP = "Matrix"
tk = turnkey_http.TurnkeyClient(
    base_url=given["url"],
    stamper=ApiKeyStamper(
        ApiKeyStamperConfig(api_public_key=given["apiPublicKey"], api_private_key=given["apiPrivateKey"])
    ),
    organization_id=given["organizationId"],
    polling_interval_ms=50,
)
state: dict[str, Any] = {}
CALLS = itertools.count()


def call(method: str, body: str, **params: Any) -> Any:
    """tk.<method>(T.<body>(**params)), each with its own timestamp: two like requests within one
    millisecond would otherwise be one activity to the service."""
    model = getattr(T, body)
    if "timestampMs" in model.model_fields:
        params.setdefault("timestampMs", str(time.time_ns() // 1_000_000 + next(CALLS)))
    return getattr(tk, method)(model.model_validate(params))


def latest_message() -> dict[str, Any]:
    reply = requests.get(f"{given['url']}/_simulator/outbox", params={"contact": given["email"]}, timeout=10)
    messages = reply.json()["messages"]
    assert messages, f"no message to {given['email']} in the outbox"
    return messages[-1]  # type: ignore[no-any-return]


def expect(condition: Any, message: str) -> None:
    if not condition:
        raise AssertionError(message)


def whoami() -> None:
    me = tk.get_whoami(T.GetWhoamiBody())
    expect(me.userId == given["userId"] and me.organizationId == given["organizationId"], f"whoami {me}")


def wallet() -> None:
    made = call("create_wallet", "CreateWalletBody", walletName="matrix", accounts=[ETH])
    state["address"], state["activityId"] = made.addresses[0], made.activity.id
    accounts = tk.get_wallet_accounts(T.GetWalletAccountsBody(walletId=made.walletId)).accounts
    expect(any(a.address == state["address"] for a in accounts), "the new address is not among the wallet's accounts")


def sign_raw_payload() -> None:
    message = encode_defunct(text=f"matrix turnkey-http@{given['version']}")
    digest = keccak(b"\x19" + message.version + message.header + message.body).hex()  # EIP-191
    made = call(
        "sign_raw_payload",
        "SignRawPayloadBody",
        signWith=state["address"],
        payload="0x" + digest,
        encoding="PAYLOAD_ENCODING_HEXADECIMAL",
        hashFunction="HASH_FUNCTION_NO_OP",
    )
    signer = Account.recover_message(message, vrs=(27 + int(made.v, 16), int(made.r, 16), int(made.s, 16)))
    expect(signer == state["address"], f"signature recovers {signer}, not {state['address']}")


def sign_transaction() -> None:
    # EIP-1559, unsigned: 0x02 || rlp([chainId, nonce, tip, maxFee, gas, to, value, data, accessList])
    unsigned = b"\x02" + rlp.encode([1, 0, 10**9, 30 * 10**9, 21000, b"\x00" * 20, 1, b"", []])
    made = call(
        "sign_transaction",
        "SignTransactionBody",
        signWith=state["address"],
        type="TRANSACTION_TYPE_ETHEREUM",
        unsignedTransaction="0x" + unsigned.hex(),
    )
    signed = made.signedTransaction
    signer = Account.recover_transaction(signed if signed.startswith("0x") else "0x" + signed)
    expect(signer == state["address"], f"transaction signed by {signer}, not {state['address']}")


def sub_organization() -> None:
    root = {"userName": "Root", "userEmail": given["email"], "apiKeys": [], "authenticators": [], "oauthProviders": []}
    made = call(
        "create_sub_organization",
        "CreateSubOrganizationBody",
        subOrganizationName="matrix",
        rootUsers=[root],
        rootQuorumThreshold=1,
        wallet={"walletName": "Default", "accounts": [ETH]},
    )
    state["subOrganizationId"], state["rootUserId"] = made.subOrganizationId, made.rootUserIds[0]
    expect(made.wallet.addresses[0].startswith("0x"), "the sub-organization's wallet has no address")


def users_and_api_keys() -> None:
    user = {"userName": "Matrix user", "apiKeys": [], "authenticators": [], "oauthProviders": [], "userTags": []}
    state["userId"] = call("create_users", "CreateUsersBody", users=[user]).userIds[0]
    key = {"apiKeyName": "matrix", "publicKey": ClientKey().public, "curveType": "API_KEY_CURVE_P256"}
    ids = call("create_api_keys", "CreateApiKeysBody", userId=state["userId"], apiKeys=[key]).apiKeyIds
    listed = tk.get_api_keys(T.GetApiKeysBody(userId=state["userId"])).apiKeys
    expect([k.apiKeyId for k in listed] == ids, "get_api_keys does not list the new key")


def policy() -> None:
    made = call(
        "create_policy",
        "CreatePolicyBody",
        policyName="matrix",
        effect="EFFECT_ALLOW",
        consensus=f"approvers.any(user, user.id == '{state['userId']}')",
        condition="activity.resource == 'WALLET'",
        notes="",
    )
    expect(made.policyId, "no policyId")


def otp_auth() -> None:
    started = call("init_otp_auth", "InitOtpAuthBody", otpType="OTP_TYPE_EMAIL", contact=given["email"], appName=APP)
    target = ClientKey()
    done = call(
        "otp_auth",
        "OtpAuthBody",
        organizationId=state["subOrganizationId"],
        otpId=started.otpId,
        otpCode=latest_message()["code"],
        targetPublicKey=target.uncompressed,
    )
    expect(done.userId == state["rootUserId"] and done.credentialBundle, f"otp_auth {done}")


def otp_login() -> None:
    started = call("init_otp", "InitOtpBody", otpType="OTP_TYPE_EMAIL", contact=given["email"], appName=APP)
    key = ClientKey()
    plaintext = json.dumps({"otp_code": latest_message()["code"], "public_key": key.public}).encode()
    sealed = seal_to_target(started.otpEncryptionTargetBundle, plaintext)
    token = call("verify_otp", "VerifyOtpBody", otpId=started.otpId, encryptedOtpBundle=sealed).verificationToken
    claims = json.loads(base64.b64decode(token.split(".")[1] + "=="))
    message = json.dumps({"login": {"publicKey": key.public}, "tokenId": claims["id"], "type": "USAGE_TYPE_LOGIN"})
    signature = {
        "publicKey": key.public,
        "scheme": "CLIENT_SIGNATURE_SCHEME_API_P256",
        "message": message,
        "signature": key.raw_signature(message),
    }
    session = call(
        "otp_login",
        "OtpLoginBody",
        organizationId=state["subOrganizationId"],
        verificationToken=token,
        publicKey=key.public,
        clientSignature=signature,
    ).session
    organization = json.loads(base64.b64decode(session.split(".")[1] + "=="))["organization_id"]
    expect(organization == state["subOrganizationId"], f"session for {organization}")


def email_auth() -> None:
    done = call(
        "email_auth",
        "EmailAuthBody",
        organizationId=state["subOrganizationId"],
        email=given["email"],
        targetPublicKey=ClientKey().uncompressed,
        emailCustomization={"appName": APP},
    )
    expect(done.userId == state["rootUserId"], f"email_auth {done}")
    expect(latest_message().get("credentialBundle"), "no credential bundle mailed")


def email_recovery() -> None:
    done = call(
        "init_user_email_recovery",
        "InitUserEmailRecoveryBody",
        organizationId=state["subOrganizationId"],
        email=given["email"],
        targetPublicKey=ClientKey().uncompressed,
        emailCustomization={"appName": APP},
    )
    expect(done.userId == state["rootUserId"], f"init_user_email_recovery {done}")


def activity_polling() -> None:
    activity = tk.get_activity(T.GetActivityBody(activityId=state["activityId"])).activity
    expect(activity.id == state["activityId"] and activity.status == "ACTIVITY_STATUS_COMPLETED", f"{activity.status}")


STEPS: list[tuple[str, list[str], Callable[[], None]]] = [
    ("whoami", ["get_whoami"], whoami),
    ("wallet", ["create_wallet", "get_wallet_accounts"], wallet),
    ("sign_raw_payload", ["sign_raw_payload"], sign_raw_payload),
    ("sign_transaction", ["sign_transaction"], sign_transaction),
    ("sub_organization", ["create_sub_organization"], sub_organization),
    ("users_and_api_keys", ["create_users", "create_api_keys", "get_api_keys"], users_and_api_keys),
    ("policy", ["create_policy"], policy),
    ("otp_auth", ["init_otp_auth", "otp_auth"], otp_auth),
    ("otp_login", ["init_otp", "verify_otp", "otp_login"], otp_login),
    ("email_auth", ["email_auth"], email_auth),
    ("email_recovery", ["init_user_email_recovery"], email_recovery),
    ("activity_polling", ["get_activity"], activity_polling),
]


def main() -> None:
    found = installed_version("turnkey-http")
    expect(found == given["version"], f"turnkey-http on the path is {found}, the matrix says {given['version']}")
    out: dict[str, Any] = {"package": "turnkey-http", "version": found, "steps": []}
    for step, methods, run in STEPS:
        missing = [m for m in methods if not callable(getattr(tk, m, None))]
        if missing:
            detail = f"skipped: {step} not in turnkey-http@{found} (no {', '.join(missing)})"
            out["steps"].append({"step": step, "status": "skipped", "detail": detail})
            continue
        began = time.monotonic()
        try:
            run()
            out["steps"].append({"step": step, "status": "passed", "seconds": round(time.monotonic() - began, 2)})
        except Exception:  # every failure is reported as the step's outcome
            out["steps"].append({"step": step, "status": "failed", "detail": traceback.format_exc()[-1500:]})
    print(json.dumps(out))


main()
