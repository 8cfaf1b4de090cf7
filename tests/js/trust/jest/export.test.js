// Run by tests/js_helper/test_trust_plugin.py with EXPORT_INPUT (an export bundle, its embedded key, the org).
const { decryptExportBundle } = require("@turnkey/crypto");

test("a simulator export bundle opens with no override", async () => {
  const given = JSON.parse(process.env.EXPORT_INPUT);
  const mnemonic = await decryptExportBundle({ ...given, returnMnemonic: true });
  require("node:fs").writeFileSync(process.env.RESULT_FILE, JSON.stringify({ mnemonic }));
});
