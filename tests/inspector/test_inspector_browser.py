"""The inspector in a real headless Chromium: what a person sees and clicks, against a live simulator.

Needs Debian's ``chromium`` and ``chromium-driver`` (``.ci/run`` installs them) and selenium (the
``test`` extra); skipped with the reason when they are absent. Every wait is bounded.
"""

from __future__ import annotations

import base64
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from conftest import DEFAULTS, ETH_ACCOUNT, ok
from pytest_httpserver import HTTPServer
from support import (
    BROWSER_STEP_SECONDS,
    CHROMEDRIVER,
    CHROMIUM,
    NO_CHROMIUM,
    SELF_DELETE,
    chromium,
    create_policy,
    refused_by_an_erroring_policy,
)

from simulator import Config, SimulatorServer
from simulator.pytest_plugin import http_receiver
from simulator.scenario import resolve_scenario
from simulator.testing import ApiKeyStamper, SimulatorClient
from simulator.webhooks import signing

pytestmark = pytest.mark.skipif(not (CHROMIUM and CHROMEDRIVER), reason=NO_CHROMIUM)
TOKEN = "inspector-test-token"
WAIT_SECONDS = BROWSER_STEP_SECONDS


@pytest.fixture(scope="module")
def server() -> Iterator[SimulatorServer]:
    config = Config(seed=11, inspector=True, control_token=TOKEN)
    with SimulatorServer(config=config) as started:
        yield started


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with chromium() as driver:
        yield driver


@pytest.fixture
def sim(server: SimulatorServer) -> SimulatorServer:
    server.simulator.use_scenarios(())
    return server


@pytest.fixture
def page(browser: Any, sim: SimulatorServer) -> Callable[[str], Any]:
    """Open a view with the token in the address (the page keeps it for the tab and drops it from the URL)."""

    def open_view(view: str) -> Any:
        browser.get(f"{sim.url}/_simulator/ui?token={TOKEN}#{view}")
        wait_for(browser, lambda d: d.find_element("id", "live").text == "live")
        return browser

    return open_view


def wait_for(driver: Any, condition: Callable[[Any], Any]) -> Any:
    from selenium.common.exceptions import NoSuchElementException, StaleElementReferenceException, TimeoutException
    from selenium.webdriver.support.ui import WebDriverWait

    waiting = WebDriverWait(
        driver, WAIT_SECONDS, ignored_exceptions=(NoSuchElementException, StaleElementReferenceException)
    )
    try:
        return waiting.until(condition)
    except TimeoutException:
        shown = driver.execute_script("return [location.href, document.body.innerText.slice(0, 1500)]")
        raise AssertionError(f"the page did not get there within {WAIT_SECONDS} s; it shows: {shown}") from None


def css(driver: Any, selector: str) -> Any:
    return driver.find_element("css selector", selector)


def client(server: SimulatorServer, private_key: str = DEFAULTS["apiPrivateKey"]) -> SimulatorClient:
    return SimulatorClient(server.url, ApiKeyStamper(private_key), DEFAULTS["organizationId"])


def test_the_page_asks_for_the_token_and_then_shows_the_organizations(browser, sim):
    browser.get(f"{sim.url}/_simulator/ui#organizations")
    browser.execute_script("sessionStorage.clear()")
    browser.refresh()
    wait_for(browser, lambda d: css(d, "#token-panel").is_displayed())
    css(browser, "#token-input").send_keys("not the token")
    css(browser, "#token-form button").click()
    wait_for(browser, lambda d: "refused" in css(d, "#token-error").text)
    css(browser, "#token-input").send_keys(TOKEN)
    css(browser, "#token-form button").click()
    tree = wait_for(browser, lambda d: css(d, f'[data-org="{DEFAULTS["organizationId"]}"]'))
    assert "Simulated Organization" in tree.text
    assert not css(browser, "#token-panel").is_displayed()


def test_a_wallet_made_through_the_api_appears_without_a_reload(page, sim):
    browser = page("organizations")
    ok(
        client(sim).submit(
            "create_wallet", "ACTIVITY_TYPE_CREATE_WALLET", {"walletName": "Seen live", "accounts": [ETH_ACCOUNT]}
        )
    )
    wallet = wait_for(browser, lambda d: css(d, '[data-wallet-name="Seen live"]'))
    address = sim.simulator.store.org(DEFAULTS["organizationId"])
    made = next(w for w in address.wallets.values() if w.name == "Seen live")
    assert made.accounts[0].address in wallet.text


def test_approving_on_the_page_completes_the_activity(page, sim):
    sim.simulator.use_scenarios((resolve_scenario("two_of_three_quorum"),))
    root = client(sim)
    pending = ok(root.submit("create_wallet", "ACTIVITY_TYPE_CREATE_WALLET", {"walletName": "Shared", "accounts": []}))
    activity_id = pending["activity"]["id"]
    assert pending["activity"]["status"] == "ACTIVITY_STATUS_CONSENSUS_NEEDED"
    browser = page(f"activities/{activity_id}")
    voter = wait_for(browser, lambda d: css(d, "#vote-user"))
    from selenium.webdriver.support.ui import Select

    Select(voter).select_by_visible_text("Bob")
    css(browser, 'button[data-action="approve"]').click()
    deadline = time.monotonic() + WAIT_SECONDS
    status = ""
    while time.monotonic() < deadline and status != "ACTIVITY_STATUS_COMPLETED":
        status = ok(root.query("get_activity", activityId=activity_id))["activity"]["status"]
        time.sleep(0.05)
    assert status == "ACTIVITY_STATUS_COMPLETED"
    votes = ok(root.query("get_activity", activityId=activity_id))["activity"]["votes"]
    assert [v["user"]["userName"] for v in votes] == ["Root User", "Bob"]
    wait_for(browser, lambda d: css(d, "#activity-story [data-status]").text == "COMPLETED")


def test_the_outbox_shows_the_otp_code(page, sim):
    contact = "reader@example.com"
    params = {"otpType": "OTP_TYPE_EMAIL", "contact": contact, "appName": "demo"}
    ok(client(sim).submit("init_otp", "ACTIVITY_TYPE_INIT_OTP_V2", params))
    browser = page("outbox")
    card = wait_for(browser, lambda d: css(d, f'[data-contact="{contact}"]'))
    assert css(card, ".otp-code").text == sim.simulator.otp_code(contact)


def test_resend_delivers_the_same_signed_event_again(page, sim):
    receiver = http_receiver()
    receiver.expect_request("/hooks", method="POST").respond_with_data("ok")
    receiver.start()
    try:
        with sim.simulator.lock:
            sim.simulator.store.org(DEFAULTS["organizationId"]).features["FEATURE_NAME_WEBHOOK"] = receiver.url_for(
                "/hooks"
            )
        ok(client(sim).submit("create_wallet", "ACTIVITY_TYPE_CREATE_WALLET", {"walletName": "hooked", "accounts": []}))
        first = wait_for_requests(receiver, 1)[0]
        browser = page("webhooks")
        event_id = first.headers["X-Turnkey-Event-Id"]
        delivery = wait_for(browser, lambda d: css(d, f'details[data-event-id="{event_id}"][data-state="delivered"]'))
        css(delivery, "summary").click()
        css(delivery, 'button[data-action="resend"]').click()
        again = wait_for_requests(receiver, 2)[1]
    finally:
        receiver.clear()
        receiver.stop()
    assert again.headers["X-Turnkey-Event-Id"] == event_id and again.get_data() == first.get_data()
    assert verified_with_pynacl(again)
    shown = wait_for(browser, lambda d: css(d, f'details[data-event-id="{event_id}"][data-state="delivered"] pre'))
    assert shown is not None


def wait_for_requests(receiver: HTTPServer, count: int) -> list[Any]:
    deadline = time.monotonic() + WAIT_SECONDS
    while len(receiver.log) < count and time.monotonic() < deadline:
        time.sleep(0.01)
    assert len(receiver.log) >= count, f"{len(receiver.log)} of {count} webhook deliveries arrived"
    return [request for request, _ in receiver.log]


def verified_with_pynacl(request: Any) -> bool:
    """The receiver's check, made with PyNaCl (not the simulator's own signing code) and the published JWKS."""
    from nacl.exceptions import BadSignatureError
    from nacl.signing import VerifyKey

    jwk = signing.jwks()["keys"][0]
    key = VerifyKey(base64.urlsafe_b64decode(jwk["x"] + "=" * (-len(jwk["x"]) % 4)))
    h = request.headers
    signed = f"v1.ed25519.{h['X-Turnkey-Signature-Key-Id']}.{h['X-Turnkey-Timestamp']}.{h['X-Turnkey-Event-Id']}."
    try:
        key.verify(signed.encode() + request.get_data(), bytes.fromhex(h["X-Turnkey-Signature"]))
    except BadSignatureError:
        return False
    return True


# why a policy errored (tests/policy/test_policy_params.py) ---------------------------------------------
POLICY_DENY_DAVE_KEY = "da4e000000000000000000000000000000000000000000000000000000000001"  # scenarios/policy_deny.yaml


def test_the_activity_page_shows_why_a_policy_errored(page, sim):
    sim.simulator.use_scenarios((resolve_scenario("policy_deny"),))
    root = client(sim)
    ok(create_policy(root, "self delete", SELF_DELETE))
    dave = SimulatorClient(sim.url, ApiKeyStamper(POLICY_DENY_DAVE_KEY), root.organization_id)
    activity_id = refused_by_an_erroring_policy(dave)
    browser = page(f"activities/{activity_id}")
    wanted = "'activity.params.user_ids' is not a parameter of ACTIVITY_TYPE_CREATE_PRIVATE_KEY_TAG"
    shown = wait_for(browser, lambda d: wanted in d.find_element("id", "activity-story").text)
    assert shown
    story = browser.find_element("id", "activity-story").text
    assert "it exposes no fields" in story  # CREATE_PRIVATE_KEY_TAG exposes no activity.params field
    assert "condition: activity.params.user_ids.count() == 1" in story  # the clause that errored


def test_sub_organizations_are_indented_under_the_pages_own_csp(page, sim, tmp_path):
    """The indentation used to be an inline style attribute, which the page's CSP (style-src 'self') blocks
    (issue 34): it is set through the CSSOM now, which the CSP allows."""
    nested = tmp_path / "nested.yaml"
    nested.write_text(
        "version: 1\norganizations:\n  - name: Parent\n    users: [{name: P, apiKeys: [{name: k}]}]\n"
        "    subOrganizations:\n      - {name: Child, users: [{name: C, apiKeys: [{name: k}]}]}\n"
    )
    sim.simulator.use_scenarios((nested,))
    browser = page("organizations")

    def button(name: str) -> Any:
        return next((b for b in browser.find_elements("css selector", ".tree button") if name in b.text), None)

    child = wait_for(browser, lambda d: button("Child"))
    padding = "return parseFloat(getComputedStyle(arguments[0]).paddingLeft)"
    assert browser.execute_script(padding, child) == browser.execute_script(padding, button("Parent")) + 16


def test_the_faults_view_shows_each_fault_the_requests_it_hit_and_removes_it(page, sim):
    sim.add_fault({"name": "down", "kind": "unavailable", "match": {"operation": "create_wallet"}})
    refused = client(sim).submit("create_wallet", "ACTIVITY_TYPE_CREATE_WALLET", {"walletName": "x", "accounts": []})
    assert refused.status == 500
    browser = page("faults")
    card = wait_for(browser, lambda d: css(d, 'details[data-fault="down"]'))
    assert "1 hit of 1 matched" in css(card, "summary").text
    row = wait_for(browser, lambda d: css(d, 'details[data-fault="down"] tr.fault-hit'))
    assert "create_wallet" in row.text and "unavailable" in row.text
    css(card, 'button[data-action="remove-fault"]').click()
    wait_for(browser, lambda d: "No faults" in css(d, "#fault-list").text)
    assert sim.fault_listing() == []


def test_the_journal_view_shows_a_requests_warnings(page, sim):
    user = {"userName": "u", "userEmail": "a@b.test", "apiKeys": [], "authenticators": [], "oauthProviders": []}
    ok(client(sim).submit("create_users", "ACTIVITY_TYPE_CREATE_USERS_V3", {"users": [{**user, "userTags": []}]}))
    browser = page("journal")
    row = wait_for(browser, lambda d: css(d, 'details[data-op="create_users"]'))
    assert "1 warning(s)" in css(row, "summary").text
    css(row, "summary").click()
    shown = wait_for(browser, lambda d: css(d, 'details[data-op="create_users"] p.warning-text'))
    assert shown.text.startswith("Warning: could not reach email: 'a@b.test'")
