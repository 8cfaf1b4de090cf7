"""Secrets through the HTTP surface: ingress targets signed by the simulator's signer key, imports
opened from what the client sealed, listing, and exports that independent HPKE (and @turnkey/crypto)
open."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from bundle_checks import SIGNER, independent_open, verify_envelope
from conftest import DEFAULTS, ok, result_of
from cryptography.hazmat.primitives.asymmetric import ec
from support import assert_error

from simulator.crypto import bundles, keys

ORG = DEFAULTS["organizationId"]
SUITE = "TRANSPORT_ENCRYPTION_SUITE_ENCLAVE_ENCRYPT_V1"
JS = Path(__file__).resolve().parents[1] / "js"


def init(client: Any, count: int = 1) -> list[str]:
    params = {"encryptionSuite": SUITE, "numSecrets": count}
    messages = result_of(
        client.submit("init_import_secrets", "ACTIVITY_TYPE_INIT_IMPORT_SECRETS", params), "initImportSecretsResult"
    )
    return messages["enclaveTargetMessages"]  # type: ignore[no-any-return]


def sealed(message: str, plaintext: bytes) -> tuple[str, str]:
    """(secretPayload, targetPublicKey) as encryptSecretToBundle makes them."""
    target = verify_envelope(message)
    assert target["organizationId"] == ORG
    payload = bundles.seal_to_target(plaintext, message, SIGNER, ec.generate_private_key(ec.SECP256R1()))
    return payload, target["targetPublic"]


def import_(client: Any, *items: dict[str, Any]) -> Any:
    return client.submit("import_secrets", "ACTIVITY_TYPE_IMPORT_SECRETS", {"secrets": list(items)})


def item(payload: str, target: str, **extra: Any) -> dict[str, Any]:
    return {"secretPayload": payload, "targetPublicKey": target, "encryptionSuite": SUITE, **extra}


def test_import_list_and_export(client):
    first, second = init(client, 2)
    one, two = sealed(first, b"hunter2"), sealed(second, b'{"cvv":"123"}')
    props = [{"key": "kind", "value": "password"}]
    ids = result_of(import_(client, item(*one, name="db", staticProperties=props), item(*two)), "importSecretsResult")[
        "secretIds"
    ]
    listed = ok(client.query("list_secrets"))["secrets"]
    assert [s["secretId"] for s in listed] == ids[::-1]
    assert listed[1]["name"] == "db" and listed[1]["staticProperties"] == props and "plaintext" not in listed[1]
    receiver = ec.generate_private_key(ec.SECP256R1())
    target = keys.uncompressed(receiver).hex()
    params = {"secrets": [{"secretId": i, "targetPublicKey": target, "encryptionSuite": SUITE} for i in ids]}
    payloads = result_of(client.submit("export_secrets", "ACTIVITY_TYPE_EXPORT_SECRETS", params), "exportSecretsResult")
    opened = []
    for payload in payloads["secretPayloads"]:
        data = verify_envelope(payload)
        assert data["organizationId"] == ORG
        opened.append(
            independent_open(bytes.fromhex(data["encappedPublic"]), bytes.fromhex(data["ciphertext"]), receiver)
        )
    assert opened == [b"hunter2", b'{"cvv":"123"}']


def test_import_refusals(client):
    message = init(client)[0]
    payload, target = sealed(message, b"s")
    other_payload, _ = sealed(init(client)[0], b"x")
    assert_error(import_(client, item(other_payload, target)), 400, 3, "does not open")
    assert_error(import_(client, item(payload, "04" + "00" * 64)), 400, 3, "not an ingress key")
    assert_error(import_(client, item("{}", target)), 400, 3, "secretPayload")
    result_of(import_(client, item(payload, target, name="n")), "importSecretsResult")
    assert_error(import_(client, item(payload, target)), 400, 3, "already used")
    again, again_target = sealed(init(client)[0], b"y")
    assert_error(import_(client, item(again, again_target, name="n")), 400, 3, "secret name must be unique")


def test_export_refusals(client):
    params = {
        "secrets": [
            {
                "secretId": "00000000-0000-4000-8000-0000000000c9",
                "targetPublicKey": "04" + "11" * 64,
                "encryptionSuite": SUITE,
            }
        ]
    }
    assert_error(
        client.submit("export_secrets", "ACTIVITY_TYPE_EXPORT_SECRETS", params),
        404,
        5,
        "00000000-0000-4000-8000-0000000000c9",
    )


@pytest.mark.skipif(
    not (shutil.which("node") and (JS / "node_modules").is_dir()), reason="node or tests/js/node_modules missing"
)
def test_turnkey_crypto_seals_and_opens_secrets(client):
    message = init(client)[0]
    receiver = ec.generate_private_key(ec.SECP256R1())
    script = """
    const { encryptSecretToBundle } = require("@turnkey/crypto");
    const [message, org, signer] = JSON.parse(process.argv[1]);
    encryptSecretToBundle({ plaintext: "from js", ingressTargetBundle: message, organizationId: org,
      dangerouslyOverrideSignerPublicKey: signer }).then((r) => console.log(JSON.stringify(r)));
    """
    run = subprocess.run(
        ["node", "-e", script, json.dumps([message, ORG, SIGNER])], cwd=JS, capture_output=True, text=True, timeout=60
    )
    sealed_js = json.loads(run.stdout)
    secret_id = result_of(
        import_(client, item(sealed_js["secretPayload"], sealed_js["targetPublicKey"])), "importSecretsResult"
    )["secretIds"][0]
    target = keys.uncompressed(receiver).hex()
    params = {"secrets": [{"secretId": secret_id, "targetPublicKey": target, "encryptionSuite": SUITE}]}
    payload = result_of(client.submit("export_secrets", "ACTIVITY_TYPE_EXPORT_SECRETS", params), "exportSecretsResult")[
        "secretPayloads"
    ][0]
    script = """
    const { decryptSecretBundle } = require("@turnkey/crypto");
    const [payload, key, org, signer] = JSON.parse(process.argv[1]);
    decryptSecretBundle({ secretPayload: payload, embeddedPrivateKey: key, organizationId: org,
      dangerouslyOverrideSignerPublicKey: signer }).then((r) => console.log(r));
    """
    given = json.dumps([payload, keys.private_hex(receiver), ORG, SIGNER])
    run = subprocess.run(["node", "-e", script, given], cwd=JS, capture_output=True, text=True, timeout=60)
    assert run.stdout.strip() == "from js", run.stderr
