"""One suite written for the pytest plugin, run both ways with one switch: against the simulator by default, and
with ``WALLET_SIMULATOR_UPSTREAM`` set against an upstream (here a second simulator standing in for Turnkey, its
credentials in the ``TURNKEY_*`` variables a team sets) through the recorder, the simulator-only tests skipped
with their reason; the simulated run recorded with ``WALLET_SIMULATOR_PARITY_OUT``; ``parity diff`` of the two
finds nothing."""

from __future__ import annotations

import pytest

from simulator.cli import main
from simulator.config import Config
from simulator.parity.exchanges import read_recording
from simulator.server import SimulatorServer

SUITE = """
import pytest
import turnkey_sdk_types as T

ETH = T.v1WalletAccountParams(curve="CURVE_SECP256K1", pathFormat="PATH_FORMAT_BIP32", path="m/44'/60'/0'/0/0",
                              addressFormat="ADDRESS_FORMAT_ETHEREUM")


def test_a_wallet_through_the_official_client(turnkey_client):
    made = turnkey_client.create_wallet(T.CreateWalletBody(walletName="suite", accounts=[ETH]))
    assert made.addresses[0].startswith("0x")
    assert "suite" in [w.walletName for w in turnkey_client.get_wallets().wallets]


def test_whoami_and_a_refusal(simulator_client, simulator_credentials):
    assert simulator_client.query("whoami").body["organizationId"] == simulator_credentials["organizationId"]
    assert simulator_client.query("get_wallet", walletId="00000000-0000-4000-8000-0000000000ff").status == 404


@pytest.mark.simulator_only("moves the simulated clock")
def test_the_clock(simulator):
    simulator.clock.advance(30)


def test_the_outbox(simulator_client, simulator_outbox):
    simulator_client.submit("init_otp", "ACTIVITY_TYPE_INIT_OTP_V2",
                            {"otpType": "OTP_TYPE_EMAIL", "contact": "a@example.com", "appName": "x"})
    assert simulator_outbox.wait_for("a@example.com", timeout=1)


def test_the_journal(simulator, simulator_client):
    simulator_client.query("list_wallets")
    assert simulator.journal.entries("list_wallets")
"""


@pytest.fixture
def suite(pytester, monkeypatch):
    for name in ("WALLET_SIMULATOR_UPSTREAM", "WALLET_SIMULATOR_PARITY_OUT", "TURNKEY_ORGANIZATION_ID"):
        monkeypatch.delenv(name, raising=False)
    pytester.makepyfile(test_suite=SUITE)
    return pytester


def test_the_suite_runs_against_the_simulator_by_default(suite):
    suite.runpytest_subprocess("-q", "-p", "no:cacheprovider").assert_outcomes(passed=5)


def test_one_switch_runs_it_against_the_upstream_and_the_diff_finds_nothing(suite, monkeypatch):
    real, simulated = suite.path / "real.jsonl", suite.path / "simulated.jsonl"
    with SimulatorServer(config=Config(seed=31337)) as upstream:
        creds = upstream.simulator.default_credentials()
        monkeypatch.setenv("WALLET_SIMULATOR_UPSTREAM", upstream.url)
        monkeypatch.setenv("WALLET_SIMULATOR_PARITY_OUT", str(real))
        monkeypatch.setenv("TURNKEY_ORGANIZATION_ID", creds["organizationId"])
        monkeypatch.setenv("TURNKEY_API_PUBLIC_KEY", creds["apiPublicKey"])
        monkeypatch.setenv("TURNKEY_API_PRIVATE_KEY", creds["apiPrivateKey"])
        result = suite.runpytest_subprocess("-q", "-p", "no:cacheprovider", "-rs")
        result.assert_outcomes(passed=2, skipped=3)
        result.stdout.fnmatch_lines(
            [
                f"SKIPPED*simulator only (moves the simulated clock): this run is against {upstream.url}",
                "SKIPPED*simulator only (it uses the OTP outbox)*",
                "SKIPPED*simulator only: journal is the simulator's*",
            ]
        )
        arrived = [e["op"] for e in upstream.simulator.journal.entries()]
    assert "create_wallet" in arrived and "list_wallets" in arrived  # through the recorder, to the upstream
    for name in (
        "WALLET_SIMULATOR_UPSTREAM",
        "TURNKEY_ORGANIZATION_ID",
        "TURNKEY_API_PUBLIC_KEY",
        "TURNKEY_API_PRIVATE_KEY",
    ):
        monkeypatch.delenv(name)
    monkeypatch.setenv("WALLET_SIMULATOR_PARITY_OUT", str(simulated))
    suite.runpytest_subprocess("-q", "-p", "no:cacheprovider").assert_outcomes(passed=2, skipped=3)
    operations = [e.operation for e in read_recording(real)[1]]
    assert operations == [e.operation for e in read_recording(simulated)[1]] and "whoami" in operations
    assert main(["parity", "diff", str(real), str(simulated)]) == 0


def test_an_upstream_without_the_users_key_fails_saying_what_to_set(suite, monkeypatch):
    monkeypatch.setenv("WALLET_SIMULATOR_UPSTREAM", "http://127.0.0.1:9")
    monkeypatch.setenv("WALLET_SIMULATOR_PARITY_OUT", str(suite.path / "real.jsonl"))
    result = suite.runpytest_subprocess("-q", "-p", "no:cacheprovider", "-k", "whoami")
    result.assert_outcomes(errors=1, deselected=4)
    result.stdout.fnmatch_lines(["*set TURNKEY_ORGANIZATION_ID, TURNKEY_API_PUBLIC_KEY, TURNKEY_API_PRIVATE_KEY*"])


def test_hasattr_on_the_upstream_is_false_and_what_only_the_simulator_has_says_so(tmp_path):
    from simulator.parity.suite import SimulatorOnly, Upstream

    with SimulatorServer(config=Config(seed=1)) as server:
        through = Upstream(server.url, tmp_path / "out.jsonl", proxy_upstream=server.proxy_url)
        try:
            assert through.url.startswith("http://127.0.0.1:") and not hasattr(through, "journal")
            with pytest.raises(SimulatorOnly, match="clock is the simulator's"):
                _ = through.clock
        finally:
            through.stop()
