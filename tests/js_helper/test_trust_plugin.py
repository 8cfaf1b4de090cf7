"""wallet-simulator-testing's trust of the simulator's keys (js/lib/trust/trust.js and its entry points):
the Node preload (js/lib/trust/register.js, and core2-shim.js, its old name) and the esbuild, Vite and
webpack plugins make every copy of @turnkey/crypto expect the simulator's signer keys, so
Turnkey's own code runs unmodified. Node scripts in tests/js/trust/ do the JS side; what they
print is checked here with independent libraries. Each "without" case shows why it exists.

Runs when node and tests/js/node_modules are present (`npm ci --prefix tests/js`).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from bip_utils import Bip39MnemonicGenerator, Bip39WordsNum
from conftest import ROOT
from eth_keys import keys as eth
from support import eth_address_of

from simulator.crypto import service_keys
from simulator.testing import ClientKeyPair, SimulatorClient

JS = ROOT / "tests" / "js"
SCRIPTS = JS / "trust"
HELPER = ROOT / "js"
TRUST = HELPER / "lib" / "trust"  # the key-trust rewrite: the preload, the plugins and the transform
REGISTER = TRUST / "register.js"
NODE = shutil.which("node") or "node"
pytestmark = pytest.mark.skipif(
    not (shutil.which("node") and (JS / "node_modules").is_dir()),
    reason="node or tests/js/node_modules missing (npm ci --prefix tests/js)",
)
REFUSED = "does not match signer key from bundle"
BANNER = "NEVER ship this to production"
# production constant -> the simulator key that stands in for it (simulator/crypto/service_keys.py)
REPLACED = {
    "PRODUCTION_SIGNER_SIGN_PUBLIC_KEY": "signer",  # export and import bundles (simulator/crypto/bundles.py)
    "PRODUCTION_TLS_FETCHER_SIGN_PUBLIC_KEY": "enclave",  # init_otp's target bundle (activities/otp.py)
    "PRODUCTION_NOTARIZER_SIGN_PUBLIC_KEY": "notarizer",  # session JWTs (activities/sessions.py)
}
# the signer's and notarizer's names in @turnkey/crypto before 2.5 (sdk-server 2.x-3.x and viem 0.9 ship such copies)
OLD_NAMES = {"PRODUCTION_SIGNER_PUBLIC_KEY": "signer", "PRODUCTION_NOTARIZER_PUBLIC_KEY": "notarizer"}
KEPT = ("PRODUCTION_TLS_FETCHER_ENCRYPT_PUBLIC_KEY", "PRODUCTION_ON_RAMP_CREDENTIALS_ENCRYPTION_PUBLIC_KEY")
ETH = {
    "curve": "CURVE_SECP256K1",
    "pathFormat": "PATH_FORMAT_BIP32",
    "path": "m/44'/60'/0'/0/0",
    "addressFormat": "ADDRESS_FORMAT_ETHEREUM",
}


def node(*args: str, cwd: Path | None = None, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [NODE, *args], capture_output=True, text=True, timeout=120, cwd=cwd, env={**os.environ, **(env or {})}
    )


def printed(run: subprocess.CompletedProcess[str]) -> dict:
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-3000:]
    return json.loads(run.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


def result(response, key: str) -> dict:
    return response.body["activity"]["result"][key]  # type: ignore[no-any-return]


def crypto_copies() -> list[Path]:
    """Every installed copy of @turnkey/crypto, top level and nested (npm installs several versions)."""
    return sorted(p.parent for p in (JS / "node_modules").rglob("@turnkey/crypto/package.json"))


def version_of(copy: Path) -> str:
    return json.loads((copy / "package.json").read_text())["version"]  # type: ignore[no-any-return]


# the keys and the transform ------------------------------------------------------------------------
def test_the_hard_coded_keys_are_the_simulators_published_keys():
    code = "const t = require(process.argv[1]); console.log(JSON.stringify([t.SIMULATOR_KEYS, t.trustedKeys({})]))"
    simulator_keys, trusted = printed(node("-e", code, str(TRUST / "trust.js")))
    published = service_keys.published()
    assert simulator_keys == {name: published[name] for name in ("signer", "enclave", "notarizer")}
    assert trusted == {constant: published[name] for constant, name in {**REPLACED, **OLD_NAMES}.items()}


def test_the_rewrite_replaces_the_three_keys_in_every_installed_build_and_leaves_the_rest():
    copies = [c for c in crypto_copies() if version_of(c).startswith(("2.11.", "2.13."))]
    assert {version_of(c)[:4] for c in copies} == {"2.11", "2.13"}
    files = [str(c / "dist" / name) for c in copies for name in ("constants.js", "constants.mjs")]
    code = (
        "const t = require(process.argv[1]); const fs = require('fs');"
        "console.log(JSON.stringify(process.argv.slice(2).map((f) => { const s = fs.readFileSync(f, 'utf8');"
        " const out = t.rewriteConstants(s, f); return [s, out, t.rewriteConstants(out, f),"
        " t.rewriteConstants(s, '/app/src/constants.js')]; })))"
    )
    published = service_keys.published()
    for original, rewritten, again, elsewhere in printed(node("-e", code, str(TRUST / "trust.js"), *files)):
        for constant, name in REPLACED.items():
            assert f'{constant} = "{published[name]}"' in rewritten
        for constant in KEPT:  # no simulator counterpart: untouched
            line = next(x for x in original.splitlines() if x.startswith(f"const {constant} ="))
            assert line in rewritten
        assert BANNER in rewritten
        assert rewritten.rstrip().endswith(".map")  # sourceMappingURL stays the last line
        assert again is None and elsewhere is None  # idempotent; other files are left alone


def test_the_constants_files_are_recognised_wherever_a_package_manager_or_bundler_puts_them():
    paths = {
        "/app/node_modules/@turnkey/crypto/dist/constants.js": True,
        "/app/node_modules/@turnkey/core/node_modules/@turnkey/crypto/dist/constants.mjs": True,
        "/app/node_modules/.pnpm/@turnkey+crypto@2.13.2/node_modules/@turnkey/crypto/dist/constants.mjs": True,
        "C:\\app\\node_modules\\@turnkey\\crypto\\dist\\constants.js": True,
        "/app/node_modules/@turnkey/crypto/dist/constants.mjs?v=1a2b3c": True,  # a Vite id
        "/app/node_modules/@turnkey/crypto/dist/turnkey.js": False,
        "/app/node_modules/@turnkey/sdk-browser/dist/constants.js": False,
        "/app/src/constants.js": False,
    }
    code = (
        "const t = require(process.argv[1]); console.log(JSON.stringify(process.argv.slice(2).map(t.isConstantsFile)))"
    )
    assert printed(node("-e", code, str(TRUST / "trust.js"), *paths)) == list(paths.values())


def test_a_key_named_in_the_environment_replaces_the_default_and_a_bad_one_is_refused():
    other = ClientKeyPair.generate().public_key_uncompressed
    code = (
        "require(process.argv[1]);"
        "const c = require(require('path').join(require.resolve('@turnkey/crypto'), '..', 'constants.js'));"
        "console.log(JSON.stringify([c.PRODUCTION_TLS_FETCHER_SIGN_PUBLIC_KEY, c.PRODUCTION_SIGNER_SIGN_PUBLIC_KEY]))"
    )
    env = {"WALLET_SIMULATOR_OTP_SIGNER_PUBLIC_KEY": other}
    assert printed(node("-e", code, str(REGISTER), cwd=JS, env=env)) == [other, service_keys.public_hex("signer")]
    bad = node("-e", code, str(REGISTER), cwd=JS, env={"WALLET_SIMULATOR_SIGNER_PUBLIC_KEY": "04ab"})
    assert bad.returncode != 0 and "WALLET_SIMULATOR_SIGNER_PUBLIC_KEY is not a P-256 public key" in bad.stderr


# the Node preload: Turnkey's examples, unmodified, from a project outside the repository ------------
@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A project directory of its own (outside the repository) with the example scripts and the
    official clients installed (a link to tests/js/node_modules)."""
    (tmp_path / "node_modules").symlink_to(JS / "node_modules", target_is_directory=True)
    for script in ("export-in-node.js", "export-in-node.mjs", "import-in-node.js", "import-in-node.mjs"):
        shutil.copy(SCRIPTS / script, tmp_path / script)
    assert ROOT not in tmp_path.parents
    return tmp_path


def example_env(simulator, credentials: dict, **extra: str) -> dict[str, str]:
    return {
        "BASE_URL": simulator.url,
        "API_PUBLIC_KEY": credentials["apiPublicKey"],
        "API_PRIVATE_KEY": credentials["apiPrivateKey"],
        "ORGANIZATION_ID": credentials["organizationId"],
        "USER_ID": credentials["userId"],
        **extra,
    }


@pytest.mark.parametrize("script", ["export-in-node.js", "export-in-node.mjs"])
def test_export_in_node_runs_unmodified_under_the_preload(script, project, simulator, simulator_credentials):
    env = example_env(simulator, simulator_credentials)
    refused = printed(node(script, cwd=project, env=env))
    assert REFUSED in refused["error"]  # why the preload exists: the production key is pinned
    run = node("--require", str(REGISTER), script, cwd=project, env=env)
    out = printed(run)
    assert eth_address_of(out["mnemonic"]) == out["address"]
    assert BANNER in run.stderr


@pytest.mark.parametrize("script", ["import-in-node.js", "import-in-node.mjs"])
def test_import_in_node_runs_unmodified_under_the_preload(script, project, simulator, simulator_credentials):
    mnemonic = str(Bip39MnemonicGenerator().FromWordsNumber(Bip39WordsNum.WORDS_NUM_12))
    payload = os.urandom(32)
    env = example_env(simulator, simulator_credentials, MNEMONIC=mnemonic, PAYLOAD=payload.hex())
    assert REFUSED in printed(node(script, cwd=project, env=env))["error"]
    out = printed(node("--require", str(REGISTER), script, cwd=project, env=env))
    assert out["address"] == eth_address_of(mnemonic)
    sig = out["signature"]
    signature = eth.Signature(vrs=(int(sig["v"], 16), int(sig["r"], 16), int(sig["s"], 16)))
    assert signature.recover_public_key_from_msg_hash(payload).to_checksum_address() == out["address"]


def test_the_preload_works_from_node_options(project, simulator, simulator_credentials):
    env = example_env(simulator, simulator_credentials, NODE_OPTIONS=f"--require {REGISTER}")
    out = printed(node("export-in-node.mjs", cwd=project, env=env))
    assert eth_address_of(out["mnemonic"]) == out["address"]


def export_input(client: SimulatorClient, organization_id: str) -> tuple[dict, str]:
    """A simulator export bundle of a new wallet, its target key, and the wallet's address."""
    made = result(
        client.submit(
            "create_wallet",
            "ACTIVITY_TYPE_CREATE_WALLET",
            {"walletName": f"trust {os.urandom(4).hex()}", "accounts": [ETH]},
        ),
        "createWalletResult",
    )
    target = ClientKeyPair.generate()
    exported = result(
        client.submit(
            "export_wallet",
            "ACTIVITY_TYPE_EXPORT_WALLET",
            {"walletId": made["walletId"], "targetPublicKey": target.public_key_uncompressed},
        ),
        "exportWalletResult",
    )
    given = {"exportBundle": exported["exportBundle"], "embeddedKey": target.private_key}
    return {**given, "organizationId": organization_id}, made["addresses"][0]


def test_every_installed_copy_is_patched_nested_and_already_loaded_ones_too(simulator_client, simulator_credentials):
    given, _ = export_input(simulator_client, simulator_credentials["organizationId"])
    # one copy per installed version; the first is nested under another package and is required
    # before the preload runs
    by_version = {version_of(c): c for c in sorted(crypto_copies(), key=lambda c: -len(c.parts))}
    copies = sorted(by_version.values(), key=lambda c: c == JS / "node_modules" / "@turnkey" / "crypto")
    out = printed(
        node(
            str(SCRIPTS / "nested.cjs"),
            json.dumps({**given, "register": str(REGISTER), "copies": [str(c) for c in copies]}),
        )
    )
    assert REFUSED in out["before"]
    assert {c["version"] for c in out["copies"]} >= {"2.11.3", "2.13.2"}
    assert len(out["copies"]) == len(copies) > 2
    assert "node_modules" in Path(out["copies"][0]["dir"]).relative_to(JS / "node_modules").parts  # nested
    for copy in out["copies"]:
        assert (copy["cjs"], copy["esm"]) == ("ok", "ok"), copy


def test_core2_shim_is_the_preloads_old_name_with_its_exports(simulator_client, simulator_credentials):
    given, address = export_input(simulator_client, simulator_credentials["organizationId"])
    code = (
        "const shim = require(process.argv[1]);"
        "const { decryptExportBundle } = require('@turnkey/crypto');"
        "const given = JSON.parse(process.argv[2]);"
        "Promise.all([decryptExportBundle({ ...given, returnMnemonic: true }),"
        " decryptExportBundle({ ...given, returnMnemonic: true, dangerouslyOverrideSignerPublicKey: process.argv[3] })])"
        ".then(([mnemonic, overridden]) => console.log(JSON.stringify({"
        " mnemonic, overridden, key: shim.SIMULATOR_OTP_SIGNER_PUBLIC_KEY, patch: typeof shim.patch,"
        " installed: Boolean(globalThis[Symbol.for('wallet-simulator-testing.register')]) })));"
    )
    signer = service_keys.public_hex("signer")
    out = printed(node("-e", code, str(TRUST / "core2-shim.js"), json.dumps(given), signer, cwd=JS))
    assert eth_address_of(out["mnemonic"]) == address
    assert out["overridden"] == out["mnemonic"]  # passing the override yourself still works
    assert out["key"] == service_keys.public_hex("enclave")
    assert (out["patch"], out["installed"]) == ("function", True)


# the bundler plugins --------------------------------------------------------------------------------
def init_otp_v3(client: SimulatorClient, prefix: str) -> tuple[str, dict]:
    """An OTP sent to a new address, with its encryption target bundle (signed by the simulator's enclave key)."""
    contact = f"{prefix}-{os.urandom(3).hex()}@example.com"
    otp = result(
        client.submit(
            "init_otp", "ACTIVITY_TYPE_INIT_OTP_V3", {"otpType": "OTP_TYPE_EMAIL", "contact": contact, "appName": "T"}
        ),
        "initOtpResultV2",
    )
    return contact, otp


def bundle_input(client: SimulatorClient, organization_id: str, outbox) -> tuple[dict, str, str]:
    given, address = export_input(client, organization_id)
    contact, otp = init_otp_v3(client, "trust")
    key = ClientKeyPair.generate()
    extra = {
        "otpCode": outbox.code(contact),
        "otpEncryptionTargetBundle": otp["otpEncryptionTargetBundle"],
        "publicKey": key.public_key,
    }
    return {**given, **extra}, address, otp["otpId"]


def verifies(client: SimulatorClient, otp_id: str, sealed: str) -> bool:
    """verify_otp V2 opens what the bundle sealed: the simulator's target key took the code."""
    response = client.submit(
        "verify_otp", "ACTIVITY_TYPE_VERIFY_OTP_V2", {"otpId": otp_id, "encryptedOtpBundle": sealed}
    )
    return bool(result(response, "verifyOtpResult")["verificationToken"])


def build(bundler: str, entry: str, out_dir: Path, *, plugin: bool) -> tuple[str, str]:
    options = {"bundler": bundler, "entry": str(SCRIPTS / entry), "outDir": str(out_dir), "plugin": plugin}
    run = node(str(SCRIPTS / "build.cjs"), json.dumps({**options, "helper": str(TRUST)}))
    return printed(run)["file"], run.stderr


@pytest.mark.parametrize("bundler", ["esbuild", "vite", "webpack"])
@pytest.mark.parametrize("entry", ["app.mjs", "app.cjs"])
def test_a_bundle_built_with_the_plugin_trusts_the_simulator(
    bundler, entry, tmp_path, simulator_client, simulator_credentials, simulator_outbox
):
    given, address, otp_id = bundle_input(simulator_client, simulator_credentials["organizationId"], simulator_outbox)
    bundle, log = build(bundler, entry, tmp_path / "with", plugin=True)
    assert BANNER in log and f"[{bundler} plugin]" in log  # the plugin says it is on
    run = node(bundle, json.dumps(given), cwd=tmp_path)
    out = printed(run)
    assert BANNER in run.stderr  # and so does the bundle, where it runs
    assert eth_address_of(out["mnemonic"]) == address
    assert verifies(simulator_client, otp_id, out["encryptedOtpBundle"])


@pytest.mark.parametrize("bundler", ["esbuild", "vite", "webpack"])
def test_a_bundle_built_without_the_plugin_refuses_the_simulators_bundles(
    bundler, tmp_path, simulator_client, simulator_credentials, simulator_outbox
):
    given, _, _ = bundle_input(simulator_client, simulator_credentials["organizationId"], simulator_outbox)
    bundle, _ = build(bundler, "app.mjs", tmp_path / "without", plugin=False)
    out = printed(node(bundle, json.dumps(given), cwd=tmp_path))
    assert REFUSED in out["exportError"] and REFUSED in out["otpError"]
    assert "expected signer key" in out["otpError"]


@pytest.mark.parametrize("plugin", [True, False])
def test_vite_dev_pre_bundles_with_the_plugin(
    plugin, tmp_path, simulator_client, simulator_credentials, simulator_outbox
):
    """`vite dev` pre-bundles @turnkey/crypto before `transform` runs: the plugin hooks that step too."""
    given, address, otp_id = bundle_input(simulator_client, simulator_credentials["organizationId"], simulator_outbox)
    options = {"helper": str(TRUST), "cacheDir": str(tmp_path / "vite-cache"), "plugin": plugin}
    out = printed(node(str(SCRIPTS / "vite-dev.mjs"), json.dumps(given), json.dumps(options)))
    if plugin:
        assert eth_address_of(out["mnemonic"]) == address
        assert verifies(simulator_client, otp_id, out["encryptedOtpBundle"])
    else:
        assert REFUSED in out["exportError"] and REFUSED in out["otpError"]


def test_the_v2_verification_token_verifies_under_the_preload(simulator_client, simulator_outbox):
    """verify_otp V2's token is the enclave's (exp a millisecond string, signed by the key that stands
    in for the TLS fetcher's): @turnkey/crypto's verifyOtpVerificationToken accepts it, unmodified."""
    contact, otp = init_otp_v3(simulator_client, "token")
    key = ClientKeyPair.generate()
    code = (
        "const { encryptOtpCodeToBundle, verifyOtpVerificationToken } = require('@turnkey/crypto');"
        "const [code, bundle, publicKey] = process.argv.slice(1);"
        "encryptOtpCodeToBundle(code, bundle, publicKey).then((sealed) => console.log(JSON.stringify({ sealed })));"
    )
    given = (simulator_outbox.code(contact), otp["otpEncryptionTargetBundle"], key.public_key)
    sealed = printed(node("--require", str(TRUST / "register.js"), "-e", code, *given, cwd=JS))["sealed"]
    response = simulator_client.submit(
        "verify_otp", "ACTIVITY_TYPE_VERIFY_OTP_V2", {"otpId": otp["otpId"], "encryptedOtpBundle": sealed}
    )
    token = result(response, "verifyOtpResult")["verificationToken"]
    check = (
        "const { verifyOtpVerificationToken } = require('@turnkey/crypto');"
        "verifyOtpVerificationToken(process.argv[1]).then((claims) => console.log(JSON.stringify(claims)));"
    )
    claims = printed(node("--require", str(TRUST / "register.js"), "-e", check, token, cwd=JS))
    assert claims["contact"] == contact and claims["public_key"] == key.public_key
    assert isinstance(claims["exp"], str) and int(claims["exp"]) > 1_000_000_000_000  # milliseconds, as a string
    refused = node("-e", check, token, cwd=JS)  # without the preload: the production key is expected
    assert refused.returncode != 0 and "signature is invalid" in refused.stderr


@pytest.mark.parametrize("trusted", [True, False])
def test_jest_runs_turnkeys_code_with_the_transform(trusted, simulator_client, simulator_credentials, tmp_path):
    """jest loads modules itself (no require hooks): withSimulatorTrust adds the same rewrite as a transform."""
    given, address = export_input(simulator_client, simulator_credentials["organizationId"])
    result_file = tmp_path / "result.json"
    env = {"EXPORT_INPUT": json.dumps(given), "RESULT_FILE": str(result_file), "WITHOUT_TRUST": "" if trusted else "1"}
    jest = JS / "node_modules" / "jest" / "bin" / "jest.js"
    run = node(
        str(jest), "--ci", "--no-cache", "--config", str(JS / "trust" / "jest" / "jest.config.js"), cwd=JS, env=env
    )
    if trusted:
        assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-3000:]
        assert eth_address_of(json.loads(result_file.read_text())["mnemonic"]) == address
    else:
        assert run.returncode != 0 and REFUSED in run.stderr
