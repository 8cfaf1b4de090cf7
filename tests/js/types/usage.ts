// Every part of wallet-simulator-testing's public surface as a TypeScript suite uses it; compiled with
// `tsc --noEmit --strict` by tests/js_helper/test_js_types.py, so a type that lags the helper fails CI.
import {
  COMMAND_ENV,
  ControlClient,
  ControlError,
  READY_ENV,
  WEBHOOK_JWKS,
  connect,
  createGlobalSetup,
  globalTeardown,
  resetBeforeEach,
  startSimulator,
  startWebhookReceiver,
  verifyWebhook,
  type JournalEntry,
  type ReadyLine,
  type Simulator,
  type WebhookReceiver,
} from "wallet-simulator-testing";

async function everything(): Promise<void> {
  const sim: Simulator = await startSimulator({ scenarios: ["default"], seed: 1, controlToken: "t", args: ["--auth-proxy"] });
  const ready: ReadyLine = sim.ready;
  const fields: Array<string | number | null | undefined> = [
    ready.url,
    ready.proxyUrl,
    ready.organizationId,
    ready.userId,
    ready.apiPublicKey,
    ready.apiPrivateKey,
    ready.seed,
    ready.signerPublicKey,
    ready.inspectorUrl,
    ready.authProxyConfigId,
  ];
  const control: ControlClient = sim.control;
  await control.reset();
  await control.loadScenarios(["two_of_three_quorum"], { replace: true });
  const snapshot: string = await control.snapshot();
  await control.restore(snapshot);
  await control.importState(await control.state());
  const entries: JournalEntry[] = await control.journal("create_wallet");
  await control.assertCalled("create_wallet", { walletName: "w" }, { times: 1 });
  await control.assertNotCalled("delete_wallets");
  const calls: JournalEntry[] = await control.calls("create_wallet", { walletName: "w" });
  const code: string = await control.waitForOtp("a@example.com", { timeoutMs: 1000, after: 0 });
  const nowMs: number = await control.advanceClock(30);
  await control.approve("activity", "Bob");
  await control.reject("activity", "Carol");
  await control.explain("activity");
  await control.outbox("a@example.com");
  await control.coverage();
  await control.keys();
  await control.configureAuthProxy(ready.organizationId, { allowedOrigins: ["http://localhost:3000"] });
  await control.oauthAuthorize("subject", { email: "a@example.com" });
  await control.oauthIdToken("subject", "client", { nonce: "n" });
  await control.webhookDeliveries();
  await control.fireWebhook({ activityId: null });
  await control.resendWebhook("event");
  await control.webhookChaos({ drop: true });
  await control.drainWebhooks(1);
  await control.setWebhookReceiver("http://127.0.0.1:9/hook");
  const receiver: WebhookReceiver = await startWebhookReceiver(sim, { path: "/hooks" });
  const [first] = await receiver.waitFor(1, { timeoutMs: 1000 });
  const valid: boolean = receiver.verify(first) && verifyWebhook(first.headers, first.rawBody, WEBHOOK_JWKS);
  await receiver.close();
  const other = new ControlClient(sim.url, { token: "t" });
  const again: Simulator = connect(JSON.stringify(ready));
  resetBeforeEach((fn) => fn(), again);
  const setup = createGlobalSetup({ seed: 2 });
  const teardown = await setup({ provide: (key: string, value: unknown) => undefined });
  await teardown();
  await globalTeardown();
  try {
    await other.reset();
  } catch (error) {
    if (error instanceof ControlError) console.log(error.status, error.body);
  }
  console.log(fields, entries, calls, code, nowMs, valid, READY_ENV, COMMAND_ENV, await sim.stop(1000));
}

void everything;
