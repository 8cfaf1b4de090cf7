import { beforeEach, expect, test } from "vitest";
import { connect, resetBeforeEach, startWebhookReceiver } from "wallet-simulator-testing";

const sim = connect(); // url, proxyUrl, credentials, control, reset()
resetBeforeEach(beforeEach); // back to the loaded scenarios before every test

test("the journal starts empty", async () => {
  expect(await sim.control.journal("create_wallet")).toEqual([]);
  await sim.control.assertNotCalled("create_wallet");
});

test("webhooks arrive signed", async () => {
  const receiver = await startWebhookReceiver(sim);
  try {
    await sim.control.fireWebhook({ overrides: { organizationId: sim.credentials.organizationId } });
    const [delivery] = await receiver.waitFor(1);
    expect(receiver.verify(delivery)).toBe(true);
  } finally {
    await receiver.close();
  }
});
