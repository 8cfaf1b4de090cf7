const { connect, resetBeforeEach } = require("wallet-simulator-testing");

const sim = connect();
resetBeforeEach(beforeEach); // jest's beforeEach is a global

test("clock and snapshots", async () => {
  const before = await sim.control.advanceClock(0);
  expect(await sim.control.advanceClock(60)).toBeGreaterThanOrEqual(before + 60000);
  const snapshot = await sim.control.snapshot();
  await sim.control.restore(snapshot);
});
