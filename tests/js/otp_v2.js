// Seals an OTP code to an init_otp V3 target bundle with the official @turnkey/crypto, trusting
// the simulator's enclave key through the client's documented override.
// Usage: node otp_v2.js '{"bundle", "code", "publicKey", "signer"}'
const { encryptOtpCodeToBundle } = require("@turnkey/crypto");

const input = JSON.parse(process.argv[2]);
encryptOtpCodeToBundle(input.code, input.bundle, input.publicKey, input.signer)
  .then((sealed) => console.log(sealed), (e) => { console.error(e); process.exit(1); });
