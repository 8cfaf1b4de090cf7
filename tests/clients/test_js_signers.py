"""The signers people use end to end: @turnkey/viem, @turnkey/ethers and @turnkey/solana (pinned in
tests/js, unmodified) over @turnkey/http, and @turnkey/http 2.x whose calls carry no JSON Content-Type.
tests/js/signers.js drives them; viem, ethers, @solana/web3.js and @noble/curves check every result.

Runs when node and tests/js/node_modules (with the signer packages) are present (`npm ci --prefix tests/js`).
"""

from __future__ import annotations

import json
import shutil
import subprocess

import pytest
from conftest import ETH_ACCOUNT, ROOT, result_of
from support import SOL_ACCOUNT

JS = ROOT / "tests" / "js"
PACKAGES = ("@turnkey/viem", "@turnkey/ethers", "@turnkey/solana", "turnkey-http-v2")
pytestmark = pytest.mark.skipif(
    not (shutil.which("node") and all((JS / "node_modules" / p).is_dir() for p in PACKAGES)),
    reason="node or the signer packages in tests/js/node_modules missing (npm ci --prefix tests/js)",
)
EXPECTED = {
    "viem": {"legacy", "eip2930", "eip1559", "eip7702", "message", "typedData", "authorization"},
    "ethers": {"legacy", "eip2930", "eip1559", "message", "typedData"},
    "solana": {"legacy", "v0", "addSignatureLegacy", "addSignatureV0", "signAll", "message"},
    "httpV2": {
        "getWhoami",
        "getWallets",
        "getWalletAccounts",
        "signRawPayload",
        "signRawPayloads",
        "signTransaction",
        "getActivity",
    },
}


@pytest.fixture(scope="module")
def signed(simulator_server):
    simulator_server.reset()
    creds = simulator_server.simulator.default_credentials()
    from simulator.testing import ApiKeyStamper, SimulatorClient

    client = SimulatorClient(simulator_server.url, ApiKeyStamper(creds["apiPrivateKey"]), creds["organizationId"])
    made = result_of(
        client.submit(
            "create_wallet",
            "ACTIVITY_TYPE_CREATE_WALLET",
            {"walletName": "signers", "accounts": [ETH_ACCOUNT, SOL_ACCOUNT]},
        ),
        "createWalletResult",
    )
    given = {
        **creds,
        "url": simulator_server.url,
        "eth": made["addresses"][0],
        "sol": made["addresses"][1],
        "delegate": "0x" + "5a" * 20,
        "authorityKey": "0x" + "42" * 32,
    }
    run = subprocess.run(
        ["node", str(JS / "signers.js"), json.dumps(given)], capture_output=True, text=True, timeout=180
    )
    assert run.returncode == 0, run.stderr
    return {"given": given, "out": json.loads(run.stdout), "journal": simulator_server.simulator.journal}


@pytest.mark.parametrize("library", sorted(EXPECTED))
def test_every_case_is_signed_and_verified_by_the_chain_library(signed, library):
    results = signed["out"][library]
    assert set(results) == EXPECTED[library]
    failed = {name: r for name, r in results.items() if not r.get("ok")}
    assert not failed, failed


def test_transaction_types_come_back_as_sent(signed):
    viem_types = {name: signed["out"]["viem"][name]["type"] for name in ("legacy", "eip2930", "eip1559", "eip7702")}
    assert viem_types == {"legacy": "legacy", "eip2930": "eip2930", "eip1559": "eip1559", "eip7702": "eip7702"}
    assert [signed["out"]["ethers"][n]["type"] for n in ("legacy", "eip2930", "eip1559")] == [0, 1, 2]
    assert signed["out"]["solana"]["v0"]["version"] == 0 and signed["out"]["solana"]["legacy"]["version"] == "legacy"


def test_http_v2_requests_carry_no_json_content_type(signed):
    seen = signed["out"]["httpV2Wire"]
    ops = {entry["path"].rsplit("/", 1)[-1] for entry in seen}  # getWalletAccounts runs once per wallet
    assert ops == {"whoami", "list_wallets", "list_wallet_accounts", "sign_raw_payload", "sign_raw_payloads",
                   "sign_transaction", "get_activity"}  # fmt: skip
    assert all("json" not in str(entry["contentType"]).lower() for entry in seen), seen
