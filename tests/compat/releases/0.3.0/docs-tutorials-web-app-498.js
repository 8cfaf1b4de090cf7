const assert = require("node:assert/strict");
const { Turnkey } = require("@turnkey/sdk-server");
const { ControlClient } = require("wallet-simulator-testing");
const { waitForOtp } = require("wallet-simulator-testing/playwright");

(async () => {
  const control = new ControlClient("http://127.0.0.1:8080");
  const api = new Turnkey({ apiBaseUrl: "http://127.0.0.1:8080", defaultOrganizationId: "5f1c0c5e-0000-4000-8000-00000000a001",
    apiPublicKey: "02321b31e86db8b83121f9b7f7e13544d8796ff158125bec4e6493e717f75a5762",
    apiPrivateKey: "b02b91437e30e7c99682f43dfef819be237b9afba4d7131ac9f087daebb34992" }).apiClient();
  const seen = (await control.outbox("ada@example.com")).length;   // codes sent before this step
  await api.initOtp({ otpType: "OTP_TYPE_EMAIL", contact: "ada@example.com", appName: "My app" });
  const code = await waitForOtp("http://127.0.0.1:8080", "ada@example.com", { after: seen });
  assert.equal(code, (await control.outbox("ada@example.com")).at(-1).code);
  await control.reset();                                             // between tests: back to the loaded scenarios
  assert.deepEqual(await control.outbox("ada@example.com"), []);
})();
