"""Rate limits as the service applies them (docs.turnkey.com/reference/rate-limits), through HTTP, on the
simulator's clock: frozen for each test, moved by hand, so every boundary is exact."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from simulator import Config, SimulatorServer
from simulator.cli import config_from, parser
from simulator.config import Budget, RateLimits
from simulator.consensus.throttle import ORGANIZATION_WIDE, PER_TYPE, QUERY
from simulator.errors import RATE_LIMITED, RATE_LIMITED_PARENT, documented
from simulator.scenario import load_scenario
from simulator.scenario.names import ScenarioError
from simulator.testing import ApiKeyStamper, Response, SimulatorClient

PARENT, SUB_A, SUB_B = (f"5f1c0c5e-0000-4000-8000-0000000fa00{i}" for i in (1, 2, 3))
KEYS = {PARENT: "a1" + "0" * 61 + "1", SUB_A: "a1" + "0" * 61 + "2", SUB_B: "a1" + "0" * 61 + "3"}
TREE = f"""
version: 1
organizations:
  - id: {PARENT}
    name: Parent
    users: [{{name: Parent Root, apiKeys: [{{name: k, curve: API_KEY_CURVE_P256, privateKey: "{KEYS[PARENT]}"}}]}}]
    subOrganizations:
      - id: {SUB_A}
        name: Sub A
        users: [{{name: A Root, apiKeys: [{{name: k, curve: API_KEY_CURVE_P256, privateKey: "{KEYS[SUB_A]}"}}]}}]
      - id: {SUB_B}
        name: Sub B
        users: [{{name: B Root, apiKeys: [{{name: k, curve: API_KEY_CURVE_P256, privateKey: "{KEYS[SUB_B]}"}}]}}]
"""
WALLET = {"walletName": "w", "accounts": []}


def write(directory: Path, name: str, text: str) -> Path:
    path = directory / name
    path.write_text(text)
    return path


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write(tmp_path_factory.mktemp("rate_limits"), "tree.yaml", TREE)


@pytest.fixture(scope="module")
def small_budgets(tree: Path) -> Iterator[SimulatorServer]:
    """5 requests a second per sub-organization, 8 a second for a parent and its sub-organizations together, 2 a
    second per organization for each endpoint the docs limit separately."""
    limits = RateLimits(per_sub_organization=Budget(5, 1), per_parent=Budget(8, 1), per_endpoint=Budget(2, 1))
    with SimulatorServer(config=Config(seed=1, scenarios=(tree,), rate_limits=limits)) as server:
        yield server


@pytest.fixture
def limited(small_budgets: SimulatorServer) -> SimulatorServer:
    small_budgets.simulator.reset()
    small_budgets.simulator.clock.freeze()  # stamps keep real time: liveness is checked against real time
    return small_budgets


def client(server: SimulatorServer, org: str) -> SimulatorClient:
    return SimulatorClient(server.url, ApiKeyStamper(KEYS[org]), org)


def whoami(c: SimulatorClient, times: int) -> list[int]:
    return [c.query("whoami").status for _ in range(times)]


def assert_rate_limited(reply: Response, message: str) -> None:
    assert reply.status == 429, reply.body
    assert reply.body["code"] == 8 and reply.body["message"] == message
    assert reply.body["turnkeyErrorCode"] == "RATE_LIMIT_EXCEEDED"
    assert reply.body["details"][0] == {
        "@type": "type.googleapis.com/errors.v1.TurnkeyErrorDetail",
        "turnkeyErrorCode": "RATE_LIMIT_EXCEEDED",
    }
    # "The API does not return rate-limit or Retry-After headers."
    assert not [h for h in reply.headers if h == "retry-after" or h.startswith(("ratelimit", "x-ratelimit"))]


def test_the_last_accepted_and_the_first_refused_request(limited: SimulatorServer) -> None:
    a = client(limited, SUB_A)
    assert whoami(a, 5) == [200] * 5
    assert_rate_limited(a.query("whoami"), QUERY)
    assert_rate_limited(
        a.submit("create_wallet", "ACTIVITY_TYPE_CREATE_WALLET", WALLET), documented(RATE_LIMITED, ORGANIZATION_WIDE)
    )
    assert limited.simulator.journal.entries("create_wallet")[-1]["status"] == 429


def test_the_bucket_refills_continuously_on_the_simulated_clock(limited: SimulatorServer) -> None:
    a = client(limited, SUB_A)
    assert whoami(a, 6) == [200] * 5 + [429]
    limited.simulator.clock.advance(0.199)  # one request's share of the window is 1 s / 5
    assert whoami(a, 1) == [429]
    limited.simulator.clock.advance(0.001)
    assert whoami(a, 2) == [200, 429]
    limited.simulator.clock.advance(1)
    assert whoami(a, 6) == [200] * 5 + [429]


def test_sub_organizations_have_their_own_buckets_and_share_the_parents(limited: SimulatorServer) -> None:
    a, b, parent = client(limited, SUB_A), client(limited, SUB_B), client(limited, PARENT)
    assert whoami(a, 6) == [200] * 5 + [429]  # A's own budget; its refusal used nothing of the parent's
    assert whoami(b, 4) == [200] * 3 + [429]  # B's own budget has room: the parent's 8 are spent
    assert_rate_limited(parent.query("whoami"), QUERY)
    limited.simulator.clock.advance(0.125)  # one request's share of the parent's window (1 s / 8)
    assert whoami(parent, 2) == [200, 429]


def test_a_sub_organization_refused_by_its_parents_budget_gets_the_parent_variant(limited: SimulatorServer) -> None:
    """The error catalogue's two rate-limit messages: the organization's own bucket, then the parent's."""
    a, b = client(limited, SUB_A), client(limited, SUB_B)
    assert whoami(a, 5) == [200] * 5
    assert_rate_limited(
        a.submit("create_wallet", "ACTIVITY_TYPE_CREATE_WALLET", WALLET), documented(RATE_LIMITED, ORGANIZATION_WIDE)
    )
    assert whoami(b, 3) == [200] * 3  # the parent's 8 are spent
    refused = b.submit("create_wallet", "ACTIVITY_TYPE_CREATE_WALLET", WALLET)
    assert_rate_limited(refused, documented(RATE_LIMITED_PARENT, ORGANIZATION_WIDE))


def test_a_parent_is_limited_by_the_shared_budget_only(limited: SimulatorServer) -> None:
    assert whoami(client(limited, PARENT), 9) == [200] * 8 + [429]


def test_the_separately_limited_endpoints(limited: SimulatorServer) -> None:
    a, b = client(limited, SUB_A), client(limited, SUB_B)
    eth = {"curve": "CURVE_SECP256K1", "pathFormat": "PATH_FORMAT_BIP32", "path": "m/44'/60'/0'/0/0"}
    made = a.submit(
        "create_wallet",
        "ACTIVITY_TYPE_CREATE_WALLET",
        {**WALLET, "accounts": [{**eth, "addressFormat": "ADDRESS_FORMAT_ETHEREUM"}]},
    )
    balances = {"address": made.body["activity"]["result"]["createWalletResult"]["addresses"][0], "caip2": "eip155:1"}
    assert [a.query("get_wallet_address_balances", **balances).status for _ in range(2)] == [200, 200]
    assert_rate_limited(a.query("get_wallet_address_balances", **balances), QUERY)
    assert whoami(a, 2) == [200] * 2  # the endpoint's bucket is its own: A's budget had room for 2 more
    other = b.query("get_wallet_address_balances", organizationId=SUB_B, **balances)
    assert other.status != 429  # B's bucket for the endpoint is untouched (the address is not B's)


def test_a_refused_request_changes_nothing(limited: SimulatorServer) -> None:
    a = client(limited, SUB_A)
    whoami(a, 5)
    before = limited.simulator.export_state()
    assert_rate_limited(
        a.submit("create_wallet", "ACTIVITY_TYPE_CREATE_WALLET", WALLET), documented(RATE_LIMITED, ORGANIZATION_WIDE)
    )
    assert_rate_limited(a.query("list_wallets"), QUERY)
    assert limited.simulator.export_state() == before
    limited.simulator.clock.advance(60)
    assert a.query("list_wallets").body["wallets"] == []
    made = a.submit("create_wallet", "ACTIVITY_TYPE_CREATE_WALLET", WALLET)
    assert made.body["activity"]["status"] == "ACTIVITY_STATUS_COMPLETED"


def test_rate_limits_are_off_by_default(simulator: SimulatorServer, simulator_client: SimulatorClient) -> None:
    simulator.simulator.clock.freeze()
    assert simulator.simulator.config.rate_limits is None
    assert set(whoami(simulator_client, 800)) == {200}


def test_the_switch(tree: Path) -> None:
    assert config_from(parser().parse_args(["serve"])).rate_limits is None
    assert config_from(parser().parse_args(["serve", "--rate-limits"])).rate_limits == RateLimits()
    free = config_from(parser().parse_args(["serve", "--rate-limits", "free"])).rate_limits
    assert free == RateLimits(per_parent=Budget(60, 60))
    with pytest.raises(SystemExit):
        parser().parse_args(["serve", "--rate-limits", "platinum"])


def test_the_documented_defaults_from_the_scenario_key(tree: Path, tmp_path: Path) -> None:
    scenario = write(tmp_path, "defaults.yaml", f"include: [{tree}]\nrateLimits: true\n")
    with SimulatorServer(config=Config(seed=1, scenarios=(scenario,))) as server:
        server.simulator.clock.freeze()
        a = client(server, SUB_A)
        assert set(whoami(a, 600)) == {200}  # 10 RPS as a per-minute bucket: 600 at once
        assert_rate_limited(a.query("whoami"), QUERY)
        server.simulator.clock.advance(0.1)
        assert whoami(a, 2) == [200, 429]


def test_the_scenario_key_with_chosen_numbers(tree: Path, tmp_path: Path) -> None:
    text = f"include: [{tree}]\nrateLimits: {{perSubOrganization: false, perParent: {{requests: 3, seconds: 10}}}}\n"
    scenario = write(tmp_path, "chosen.yaml", text)
    with SimulatorServer(config=Config(seed=1, scenarios=(scenario,))) as server:
        server.simulator.clock.freeze()
        assert whoami(client(server, SUB_A), 2) == [200, 200]
        assert whoami(client(server, SUB_B), 2) == [200, 429]
        server.simulator.clock.advance(3.334)  # 10 s / 3, to the millisecond above
        assert whoami(client(server, PARENT), 2) == [200, 429]
        server.simulator.reset()  # a reset starts every bucket afresh
        server.simulator.clock.freeze()
        assert whoami(client(server, PARENT), 4) == [200] * 3 + [429]


def test_scripted_429_on_chosen_requests(
    simulator: SimulatorServer, simulator_client: SimulatorClient, tmp_path: Path
) -> None:
    rules = """include: [default]
rules:
  - name: the second wallet listing backs off
    match: {operation: list_wallets, occurrence: 2}
    outcome: rateLimited
  - name: wallet creation throttled once
    match: {type: CREATE_WALLET}
    outcome: rateLimited
    times: 1
"""
    simulator.simulator.use_scenarios([write(tmp_path, "scripted.yaml", rules)])
    assert [simulator_client.query("list_wallets").status for _ in range(3)] == [200, 429, 200]
    assert_rate_limited(
        simulator_client.submit("create_wallet", "ACTIVITY_TYPE_CREATE_WALLET", WALLET),
        documented(RATE_LIMITED, PER_TYPE),
    )
    made = simulator_client.submit("create_wallet", "ACTIVITY_TYPE_CREATE_WALLET", WALLET)
    assert made.body["activity"]["status"] == "ACTIVITY_STATUS_COMPLETED"
    assert simulator_client.query("whoami").status == 200


def test_a_budget_rule_limits_one_endpoint(
    simulator: SimulatorServer, simulator_client: SimulatorClient, tmp_path: Path
) -> None:
    rules = """include: [default]
rules:
  - name: balances
    match: {operation: [list_wallets]}
    outcome: rateLimited
    budget: {requests: 2, seconds: 60}
"""
    simulator.simulator.use_scenarios([write(tmp_path, "budget.yaml", rules)])
    simulator.simulator.clock.freeze()
    assert [simulator_client.query("list_wallets").status for _ in range(3)] == [200, 200, 429]
    assert set(whoami(simulator_client, 5)) == {200}
    simulator.simulator.clock.advance(30)
    assert [simulator_client.query("list_wallets").status for _ in range(2)] == [200, 429]


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("rateLimits: {perSubOrganization: {requests: 0, seconds: 1}}", "rateLimits.perSubOrganization"),
        ("rateLimits: {plan: platinum}", "rateLimits.plan"),
        ("rules: [{name: r, outcome: allow, match: {operation: whoami}}]", "rules[0]"),
        ("rules: [{name: r, outcome: rateLimited, after: {polls: 1}}]", "rules[0]"),
    ],
)
def test_the_scenario_key_and_rules_are_checked(tmp_path: Path, text: str, problem: str) -> None:
    path = write(tmp_path, "bad.yaml", f"include: [default]\n{text}\n")
    with pytest.raises(ScenarioError, match=problem.replace("[", r"\[").replace("]", r"\]")):
        load_scenario(path)


def test_the_official_python_client_sees_the_429(limited: SimulatorServer) -> None:
    http = pytest.importorskip("turnkey_http")
    stamper = pytest.importorskip("turnkey_api_key_stamper")
    types = pytest.importorskip("turnkey_sdk_types")
    key = ApiKeyStamper(KEYS[SUB_A])
    official = http.TurnkeyClient(
        base_url=limited.url,
        stamper=stamper.ApiKeyStamper(
            stamper.ApiKeyStamperConfig(api_public_key=key.public_key, api_private_key=key.private_key)
        ),
        organization_id=SUB_A,
    )
    for _ in range(5):
        assert official.get_whoami().organizationId == SUB_A
    with pytest.raises(types.TurnkeyNetworkError) as refused:
        official.get_whoami()
    assert refused.value.status_code == 429 and str(refused.value) == QUERY
