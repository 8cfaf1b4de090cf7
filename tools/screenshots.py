"""Refresh the inspector's screenshots in docs/inspector/: ``python tools/screenshots.py``.

Starts a simulator on a demo scenario, makes the requests an app would (wallets made, a policy
denial, an activity waiting for a second root user, an OTP, webhook deliveries), then shows each
view of the inspector in headless Chromium (Debian's ``chromium`` and ``chromium-driver``, driven
by selenium from the ``test`` extra) and saves it, in light mode and, for two views, dark.
"""

from __future__ import annotations

import argparse
import http.server
import shutil
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from simulator import Config, SimulatorServer
from simulator.testing import ApiKeyStamper, SimulatorClient

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "docs" / "inspector"
ORG = "5f1c0c5e-0000-4000-8000-00000000a001"
ROOT_KEY = "b02b91437e30e7c99682f43dfef819be237b9afba4d7131ac9f087daebb34992"
BOB_KEY = "b0b0000000000000000000000000000000000000000000000000000000000001"
DAVE_KEY = "da4e000000000000000000000000000000000000000000000000000000000001"
SUB_KEY = "5ab0000000000000000000000000000000000000000000000000000000000001"
MNEMONIC = "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about"
DEMO = f"""
version: 1
description: The inspector's demo (tools/screenshots.py)
organizations:
  - id: {ORG}
    name: Acme Custody
    users:
      - {{ref: root, id: 5f1c0c5e-0000-4000-8000-00000000b001, name: Root User, email: root@example.com,
         apiKeys: [{{name: Default API key, privateKey: "{ROOT_KEY}"}}]}}
      - {{ref: bob, name: Bob, email: bob@example.com, apiKeys: [{{name: bob laptop, privateKey: "{BOB_KEY}"}}]}}
      - {{ref: dave, id: da4e0000-0000-4000-8000-00000000d001, name: Dave, tags: [traders],
         apiKeys: [{{name: trading bot, privateKey: "{DAVE_KEY}"}}]}}
    rootQuorum: {{users: [root, bob], threshold: 2}}
    wallets:
      - name: Treasury
        mnemonic: {MNEMONIC}
        accounts:
          - {{curve: CURVE_SECP256K1, path: "m/44'/60'/0'/0/0", addressFormat: ADDRESS_FORMAT_ETHEREUM}}
          - {{curve: CURVE_ED25519, path: "m/44'/501'/0'/0'", addressFormat: ADDRESS_FORMAT_SOLANA}}
          - {{curve: CURVE_SECP256K1, path: "m/84'/0'/0'/0/0", addressFormat: ADDRESS_FORMAT_BITCOIN_MAINNET_P2WPKH}}
    privateKeys:
      - {{name: Hot signer, curve: CURVE_SECP256K1, privateKey: "{"0" * 63}1", addressFormats: [ADDRESS_FORMAT_ETHEREUM], tags: [hot]}}
    policies:
      - name: traders create wallets
        effect: EFFECT_ALLOW
        condition: "activity.resource == 'WALLET' && activity.action == 'CREATE'"
        consensus: "approvers.any(user, user.id == 'da4e0000-0000-4000-8000-00000000d001')"
      - name: nobody deletes policies
        effect: EFFECT_DENY
        condition: "activity.resource == 'POLICY' && activity.action == 'DELETE'"
    subOrganizations:
      - id: 5f1c0c5e-0000-4000-8000-0000000c0042
        name: Customer 1042
        users:
          - {{name: Jane Doe, email: jane@example.com, apiKeys: [{{name: session, privateKey: "{SUB_KEY}"}}]}}
"""
# the first webhook delivery (the one retried) and request unfolded, to show what they hold
OPEN_FIRST = """
const last = (selector) => [...document.querySelectorAll(selector)].pop();
for (const item of [last('#webhook-list > div > details'), last('#journal-list details')]) if (item) item.open = true;
"""
VIEWS = ("organizations", "activities", "outbox", "webhooks", "clock", "journal")
DARK_VIEWS = ("activities", "organizations")


class Receiver(http.server.BaseHTTPRequestHandler):
    """A webhook receiver that answers 200, except 503 to the first delivery (to show a retry)."""

    answered = 0

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length", 0)))
        Receiver.answered += 1
        self.send_response(503 if Receiver.answered == 1 else 200)
        self.end_headers()

    def log_message(self, *args: Any) -> None:
        pass


def populate(server: SimulatorServer, receiver_url: str) -> str:
    """Make the requests an app would; returns the id of the activity left waiting for consensus."""
    sim = server.simulator
    with sim.lock:
        sim.store.org(ORG).features["FEATURE_NAME_WEBHOOK"] = receiver_url
    dave = SimulatorClient(server.url, ApiKeyStamper(DAVE_KEY), ORG)
    dave.submit("create_wallet", "ACTIVITY_TYPE_CREATE_WALLET", {"walletName": "Trading", "accounts": [eth()]})
    dave.submit("delete_policies", "ACTIVITY_TYPE_DELETE_POLICIES", {"policyIds": []})
    root = SimulatorClient(server.url, ApiKeyStamper(ROOT_KEY), ORG)
    waiting = root.submit(
        "create_wallet", "ACTIVITY_TYPE_CREATE_WALLET", {"walletName": "Cold storage", "accounts": []}
    )
    customer = SimulatorClient(server.url, ApiKeyStamper(SUB_KEY), "5f1c0c5e-0000-4000-8000-0000000c0042")
    otp = {"otpType": "OTP_TYPE_EMAIL", "contact": "jane@example.com", "appName": "Acme wallet"}
    customer.submit("init_otp", "ACTIVITY_TYPE_INIT_OTP_V2", otp)
    customer.query("get_wallet", walletId="no-such-wallet")  # a failing read, for the journal
    sim.clock.advance(2)  # the first delivery's retry falls due
    sim.webhooks.drain(5)
    return str(waiting.body["activity"]["id"])


def eth() -> dict[str, str]:
    path = "m/44'/60'/0'/0/1"
    return {
        "curve": "CURVE_SECP256K1",
        "pathFormat": "PATH_FORMAT_BIP32",
        "path": path,
        "addressFormat": "ADDRESS_FORMAT_ETHEREUM",
    }


def browser(width: int, height: int) -> Any:
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = shutil.which("chromium") or "/usr/bin/chromium"
    for flag in (
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--hide-scrollbars",
        f"--window-size={width},{height}",
        f"--user-data-dir={tempfile.mkdtemp()}",
    ):
        options.add_argument(flag)
    driver_path = shutil.which("chromedriver") or "/usr/bin/chromedriver"
    return webdriver.Chrome(service=Service(driver_path), options=options)


def shoot(driver: Any, url: str, view: str, path: Path, dark: bool) -> None:
    driver.execute_cdp_cmd(
        "Emulation.setEmulatedMedia",
        {"features": [{"name": "prefers-color-scheme", "value": "dark" if dark else "light"}]},
    )
    driver.get(f"{url}#{view}")
    time.sleep(1.5)  # two polls: the view has rendered its data
    driver.execute_script(OPEN_FIRST)
    time.sleep(0.2)
    driver.save_screenshot(str(path))
    print(f"wrote {path.relative_to(ROOT)}")


def main() -> int:
    args = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    args.add_argument("--width", type=int, default=1440)
    args.add_argument("--height", type=int, default=900)
    options = args.parse_args()
    if not shutil.which("chromium") or not shutil.which("chromedriver"):
        print("needs Debian's chromium and chromium-driver (apt-get install chromium chromium-driver)", file=sys.stderr)
        return 2
    OUT.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as folder:
        scenario = Path(folder) / "demo.yaml"
        scenario.write_text(DEMO)
        hooks = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Receiver)
        threading.Thread(target=hooks.serve_forever, daemon=True).start()
        config = Config(
            seed=7, scenarios=(scenario,), inspector=True, frozen_clock_ms=1_767_225_600_000, liveness_clock="real"
        )
        with SimulatorServer(config=config) as server:
            waiting = populate(server, f"http://127.0.0.1:{hooks.server_port}/hooks")
            driver = browser(options.width, options.height)
            metrics = {"width": options.width, "height": options.height, "deviceScaleFactor": 1, "mobile": False}
            driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", metrics)
            try:
                page = f"{server.url}/_simulator/ui"
                for view in VIEWS:
                    target = f"activities/{waiting}" if view == "activities" else view
                    shoot(driver, page, target, OUT / f"{view}.png", dark=False)
                for view in DARK_VIEWS:
                    target = f"activities/{waiting}" if view == "activities" else view
                    shoot(driver, page, target, OUT / f"{view}-dark.png", dark=True)
            finally:
                driver.quit()
        hooks.shutdown()
    return 0


if __name__ == "__main__":
    sys.exit(main())
