"""Scenario files: loading, errors with file and line, seeded determinism and reset."""

from __future__ import annotations

import pytest
from conftest import ROOT, ok

from simulator import Config, ScenarioError, Simulator, SimulatorServer, load_scenario
from simulator.testing import ApiKeyStamper, SimulatorClient


def write(tmp_path, text: str):
    path = tmp_path / "s.yaml"
    path.write_text(text)
    return path


@pytest.mark.parametrize(
    "text, where, phrase",
    [
        (
            "organizations:\n  - name: A\n    users:\n      - name: B\n        colour: red\n",
            ":5:",
            "unknown field 'colour'",
        ),
        ("organizations:\n  - name: A\n    wallets:\n      - accounts: []\n", ":4:", "'name' is a required property"),
        ("organizations: [\n", ":2:", "not valid YAML"),
        ("organizations: []\n", ":1:", "should be non-empty"),
        ("- just a list\n", ":1:", "a scenario must be a YAML mapping"),
    ],
)
def test_bad_files_are_refused_with_file_and_line(tmp_path, text, where, phrase):
    path = write(tmp_path, text)
    with pytest.raises(ScenarioError) as caught:
        Simulator(Config(scenarios=(path,)))
    assert f"{path}{where}" in str(caught.value) and phrase in str(caught.value)


def test_every_problem_is_reported_at_once(tmp_path):
    path = write(tmp_path, "organizations:\n  - name: 1\n    users: {}\n    policies: [{name: p}]\n")
    with pytest.raises(ScenarioError) as caught:
        load_scenario(path)
    assert str(caught.value).startswith("3 problem(s)")


def test_semantic_problems_name_the_line(tmp_path):
    text = (
        "organizations:\n  - name: A\n    users:\n      - ref: a\n        name: A\n"
        "    rootQuorum:\n      users: [a, ghost]\n"
    )
    with pytest.raises(ScenarioError, match=r":7: organizations\[0\].rootQuorum.users: unknown user refs \['ghost'\]"):
        Simulator(Config(scenarios=(write(tmp_path, text),)))


def test_a_bad_mnemonic_names_its_wallet(tmp_path):
    text = (
        "organizations:\n  - name: A\n    wallets:\n      - name: W\n        mnemonic: not words\n"
        "        accounts: [{curve: CURVE_SECP256K1, path: \"m/44'/60'/0'/0/0\", addressFormat: ADDRESS_FORMAT_ETHEREUM}]\n"
    )
    with pytest.raises(ScenarioError, match=r":5: organizations\[0\].wallets\[0\].mnemonic: not a BIP-39 mnemonic"):
        Simulator(Config(scenarios=(write(tmp_path, text),)))


def test_generated_keys_are_reported_and_repeat_with_the_seed(tmp_path):
    path = write(
        tmp_path,
        "organizations:\n  - users:\n      - apiKeys: [{name: generated}]\n"
        "    wallets: [{name: W, accounts: [{curve: CURVE_SECP256K1, path: \"m/44'/60'/0'/0/0\", "
        "addressFormat: ADDRESS_FORMAT_ETHEREUM}]}]\n",
    )
    first, second = (Simulator(Config(seed=7, scenarios=(path,))) for _ in range(2))
    assert first.credentials == second.credentials
    creds = first.default_credentials()
    assert (
        len(creds["apiPrivateKey"]) == 64 and creds["apiPublicKey"] == ApiKeyStamper(creds["apiPrivateKey"]).public_key
    )
    address = lambda sim: next(iter(sim.store.orgs.values())).wallets  # noqa: E731
    assert [w.mnemonic for w in address(first).values()] == [w.mnemonic for w in address(second).values()]
    assert Simulator(Config(seed=8, scenarios=(path,))).credentials != first.credentials


def test_seeded_runs_repeat_ids_and_reset_restores_the_scenario(tmp_path):
    def run() -> list[str]:
        with SimulatorServer(config=Config(seed=42, frozen_clock_ms=1_700_000_000_000)) as server:
            client = SimulatorClient(
                server.url,
                ApiKeyStamper(server.simulator.default_credentials()["apiPrivateKey"]),
                server.simulator.default_credentials()["organizationId"],
            )
            made = [
                client.submit(
                    "create_wallet",
                    "ACTIVITY_TYPE_CREATE_WALLET",
                    {"walletName": "w", "accounts": []},
                    timestampMs="1700000000000",
                ).body["activity"]
                for _ in range(1)
            ]
            server.simulator.reset()
            assert ok(client.query("list_wallets")) == {"wallets": []}
            again = client.submit(
                "create_wallet",
                "ACTIVITY_TYPE_CREATE_WALLET",
                {"walletName": "w", "accounts": []},
                timestampMs="1700000000000",
            ).body["activity"]
            assert again["id"] == made[0]["id"]
            return [made[0]["id"], made[0]["result"]["createWalletResult"]["walletId"]]

    assert run() == run()


def test_shipped_scenarios_load():
    for path in sorted((ROOT / "scenarios").glob("*.yaml")):
        load_scenario(path)


def test_check_command_reports_problems(tmp_path, capsys):
    from simulator.cli import main

    bad = write(tmp_path, "organizations: []\n")
    assert main(["check", str(ROOT / "scenarios" / "default.yaml")]) == 0
    assert main(["check", str(bad)]) == 1
    assert "should be non-empty" in capsys.readouterr().err
