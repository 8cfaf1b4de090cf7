// The Playwright fixture set's types (js/playwright.d.ts with @playwright/test): compiled by
// tests/js_helper/test_js_types.py with tsconfig.playwright.json, which resolves @playwright/test.
import { test, expect, simulatorConfig, type SimFixture } from "wallet-simulator-testing/playwright";

const sim = simulatorConfig({ seed: 7, appPort: 5173, args: ["--auth-proxy"] });
const port: number = sim.port;
const env: Record<string, string> = sim.env("NEXT_PUBLIC_");
const setup: string = sim.globalSetup;
const frame: string = sim.exportIframeUrl;
void [port, env, setup, frame];

test("fixtures", async ({ page, sim, otp, authenticator }) => {
  const s: SimFixture = sim;
  await s.reset();
  const code: string = await otp("ada@example.com", { after: 1, timeoutMs: 5000 });
  const again: string = await sim.waitForOtp("ada@example.com");
  const credentials: { credentialId: string }[] = await authenticator.credentials();
  const approved: Record<string, unknown> = await sim.approve("activity", "Bob");
  await page.goto("/");
  expect(code.length + again.length + credentials.length).toBeGreaterThan(0);
  expect(sim.credentials.organizationId).toBeTruthy();
  void approved;
});
