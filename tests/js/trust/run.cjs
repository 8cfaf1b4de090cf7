// What the bundler tests' app does with @turnkey/crypto (passed in, so app.mjs can import it as an
// ES module and app.cjs require it): open a simulator export bundle and seal an OTP code to a
// simulator init_otp target, both with no signer override.
// Input (argv[2]): {"exportBundle", "embeddedKey", "organizationId", "otpCode",
//                   "otpEncryptionTargetBundle", "publicKey"}
// Prints {"mnemonic" | "exportError", "encryptedOtpBundle" | "otpError"}.
module.exports = async function run({ decryptExportBundle, encryptOtpCodeToBundle }) {
  const given = JSON.parse(process.argv[2]);
  const out = {};
  try {
    out.mnemonic = await decryptExportBundle({ exportBundle: given.exportBundle, embeddedKey: given.embeddedKey,
                                               organizationId: given.organizationId, returnMnemonic: true });
  } catch (e) {
    out.exportError = e.message;
  }
  try {
    out.encryptedOtpBundle = await encryptOtpCodeToBundle(given.otpCode, given.otpEncryptionTargetBundle, given.publicKey);
  } catch (e) {
    out.otpError = e.message;
  }
  console.log(JSON.stringify(out));
};
