"""The web-app tutorial as a frontend developer follows it (docs/tutorials/web-app.md): its ``file``
blocks (playwright.config.ts, vite.config.mjs, index.html, src/main.jsx, tests/wallet.spec.ts)
written, unchanged, into a new project outside the repository, the JS helper installed from its
packed tarball, and ``npx playwright test`` run: Vite builds the app with the simulator's addresses
from ``webServer.env``, the global setup starts ``wallet-simulator serve``, and Chromium (Debian's,
/usr/bin/chromium) clicks through the kit: e-mail OTP, a passkey, a signature viem verifies, export
and import through the simulator's frames, and reset.

Nothing is fetched: the packages the tutorial's ``npm install`` names are linked from tests/js/node_modules.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys

import pytest
from conftest import ROOT
from support import project_with_the_helper

JS = ROOT / "tests" / "js"
MODULES = JS / "node_modules"
NODE, CHROMIUM = shutil.which("node"), shutil.which("chromium")
TUTORIAL = ROOT / "docs" / "tutorials" / "web-app.md"
FILE_BLOCK = re.compile(r"^```(?:js|ts|jsx|html) file (\S+)\n(.*?)^```$", re.M | re.S)
# what the tutorial's `npm install` lines name, and what they bring
LINKED = ("@turnkey", "react", "react-dom", "viem", "vite", "@playwright", "playwright", "playwright-core")
pytestmark = pytest.mark.skipif(
    not (NODE and CHROMIUM and shutil.which("npm") and (MODULES / "@playwright" / "test").is_dir()),
    reason="node, npm, chromium or tests/js/node_modules/@playwright/test missing (npm ci --prefix tests/js)",
)


def tutorial_files() -> dict[str, str]:
    return {path: code for path, code in FILE_BLOCK.findall(TUTORIAL.read_text())}


def test_the_tutorial_gives_the_config_the_app_and_the_suite():
    assert {"playwright.config.ts", "vite.config.mjs", "index.html", "src/main.jsx", "tests/wallet.spec.ts"} <= set(
        tutorial_files()
    )


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    where = tmp_path_factory.mktemp("webapp")
    app = project_with_the_helper(where, "payouts-web")
    for name in LINKED:
        (app / "node_modules" / name).symlink_to(MODULES / name)
    bin_dir = app / "node_modules" / ".bin"
    bin_dir.mkdir(exist_ok=True)
    for tool in ("vite", "playwright"):
        (bin_dir / tool).symlink_to(MODULES / ".bin" / tool)
    for path, code in tutorial_files().items():
        (app / path).parent.mkdir(parents=True, exist_ok=True)
        (app / path).write_text(code)
    return app


def runner_env() -> dict[str, str]:
    env = {
        **os.environ,
        "PYTHONPATH": str(ROOT),
        "WALLET_SIMULATOR_COMMAND": json.dumps([sys.executable, "-m", "simulator"]),
        "CHROMIUM": str(CHROMIUM),
        "CI": "true",
        "NO_COLOR": "1",
        "FORCE_COLOR": "0",
    }
    for name in ("WALLET_SIMULATOR_PORT", "WALLET_SIMULATOR_PROXY_PORT", "WALLET_SIMULATOR_APP_PORT"):
        env.pop(name, None)
    return env


def playwright_passes(project, passed: int, *args: str) -> None:
    """``npx playwright test ARGS`` in the project passes, with ``passed`` tests."""
    run = subprocess.run(
        ["npx", "playwright", "test", *args, "--reporter", "line"],
        cwd=project,
        env=runner_env(),
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert run.returncode == 0, run.stdout[-6000:] + run.stderr[-3000:]
    assert re.search(rf"\b{passed} passed\b", run.stdout), run.stdout[-3000:]


def test_the_playwright_suite_from_the_docs_passes(project):
    playwright_passes(project, 5)


# The tutorial's spec with the frames' scripts served late, as a loaded machine serves them: the kit's
# export and import then take a click before their frame is set up (an export without a key, "Import
# iframe client not initialized"); the spec waits for the frame to say it is set up, so it passes.
LATE_FRAMES_CONFIG = """
import base from "./playwright.config";

export default { ...base, testMatch: "late-frames.check.ts" };
"""
LATE_FRAMES_FIXTURE = """import { test as base, expect } from "wallet-simulator-testing/playwright";

const test = base.extend({
  page: async ({ page }, use) => {
    await page.context().route(/\\/frames\\/static\\/(export|import)\\.js$/, async (route) => {
      await new Promise((resolve) => setTimeout(resolve, 3000));
      await route.continue();
    });
    await use(page);
  },
});"""
TEST_IMPORT = 'import { test, expect } from "wallet-simulator-testing/playwright";'


def test_the_tutorials_export_and_import_wait_for_frames_that_load_late(project):
    spec = tutorial_files()["tests/wallet.spec.ts"]
    assert spec.count(TEST_IMPORT) == 1
    (project / "playwright.late-frames.config.ts").write_text(LATE_FRAMES_CONFIG)
    (project / "tests" / "late-frames.check.ts").write_text(spec.replace(TEST_IMPORT, LATE_FRAMES_FIXTURE))
    playwright_passes(project, 1, "-c", "playwright.late-frames.config.ts", "-g", "export")


# The app built for production (`vite build`: the tutorial's config leaves the trust plugin out), with
# the tutorial's configuration and fixtures; what the page shows is what docs/how-to/trust-plugin.md quotes.
UNTRUSTED_CONFIG = """
import base from "./playwright.config";
import { simulatorConfig } from "wallet-simulator-testing/playwright";

const sim = simulatorConfig({ seed: 7 });
export default {
  ...base,
  testMatch: "untrusted.check.ts",
  webServer: { ...base.webServer, command:
    `npx vite build --outDir dist-untrusted && npx vite preview --outDir dist-untrusted --port ${sim.appPort} --strictPort` },
};
"""
UNTRUSTED_CHECK = """
import { test, expect } from "wallet-simulator-testing/playwright";

test("the kit without the trust plugin", async ({ page, otp }) => {
  const errors: string[] = [];
  page.on("pageerror", (e) => errors.push(e.message));
  await page.goto("/");
  await page.getByRole("button", { name: "Log in", exact: true }).click();
  await page.getByTestId("email-input").fill("ada@example.com");
  await page.getByTestId("email-input").press("Enter");
  const code = await otp("ada@example.com");
  await page.locator('input[maxlength="1"]').first().click();
  await page.keyboard.type(code);
  await expect(page.getByText("An error has occurred")).toBeVisible();
  await expect.poll(() => errors.join("\\n")).toContain("Error completing OTP: TurnkeyError: Failed to verify OTP");
});
"""


def test_without_the_trust_plugin_the_kit_shows_what_the_trust_page_quotes(project):
    page = (ROOT / "docs" / "how-to" / "trust-plugin.md").read_text()
    assert '"An error has\noccurred"' in page and "Error completing OTP: TurnkeyError: Failed to verify OTP" in page
    (project / "playwright.untrusted.config.ts").write_text(UNTRUSTED_CONFIG)
    (project / "tests" / "untrusted.check.ts").write_text(UNTRUSTED_CHECK)
    playwright_passes(project, 1, "-c", "playwright.untrusted.config.ts")
