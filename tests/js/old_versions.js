// @turnkey/http 2.x (turnkey-http-v2), unmodified, sending the activity-type versions clients released
// before the late-2025 version bumps send: old OTP, e-mail auth, recovery, users, policy and
// sub-organization types. Each call must complete with the version's own result key.
// Usage: node old_versions.js '{"url", "organizationId", "apiPublicKey", "apiPrivateKey"}'
// Prints {<call>: {type, status, resultKeys, result}} or {<call>: {error}}, and {subOrganizationId}.
const crypto = require("crypto");
const { ApiKeyStamper } = require("@turnkey/api-key-stamper");
const { TurnkeyClient } = require("turnkey-http-v2");

const given = JSON.parse(process.argv[2]);
const stamper = new ApiKeyStamper({ apiPublicKey: given.apiPublicKey, apiPrivateKey: given.apiPrivateKey });
const client = new TurnkeyClient({ baseUrl: given.url }, stamper);
const SANDBOX = "user@example.com"; // the documented sandbox contact: its OTP code is 000000
const now = () => String(Date.now());
const targetKey = () => {
  const ecdh = crypto.createECDH("prime256v1");
  ecdh.generateKeys();
  return ecdh.getPublicKey("hex", "uncompressed");
};
const seen = (response) => {
  const activity = response.activity;
  const result = activity.result || {};
  const keys = Object.keys(result).filter((k) => k.includes("Result"));
  return { type: activity.type, status: activity.status, resultKeys: keys, result: keys.length ? result[keys[0]] : null };
};

async function main() {
  const out = {};
  const call = async (name, run) => {
    try {
      out[name] = seen(await run());
    } catch (error) {
      out[name] = { error: String(error && error.message ? error.message : error).slice(0, 800) };
    }
    return out[name];
  };
  const parent = given.organizationId;
  const sub = await call("createSubOrganizationV4", () =>
    client.createSubOrganization({
      type: "ACTIVITY_TYPE_CREATE_SUB_ORGANIZATION_V4",
      timestampMs: now(),
      organizationId: parent,
      parameters: {
        subOrganizationName: "old client's org",
        rootUsers: [{ userName: "Sandy", userEmail: SANDBOX, apiKeys: [], authenticators: [] }],
        rootQuorumThreshold: 1,
      },
    }),
  );
  const organizationId = sub.result && sub.result.subOrganizationId;
  out.subOrganizationId = organizationId;
  const otp = await call("initOtpAuthV2", () =>
    client.initOtpAuth({
      type: "ACTIVITY_TYPE_INIT_OTP_AUTH_V2",
      timestampMs: now(),
      organizationId,
      parameters: { otpType: "OTP_TYPE_EMAIL", contact: SANDBOX, otpLength: 6, alphanumeric: false },
    }),
  );
  await call("otpAuth", () =>
    client.otpAuth({
      type: "ACTIVITY_TYPE_OTP_AUTH",
      timestampMs: now(),
      organizationId,
      parameters: { otpId: otp.result && otp.result.otpId, otpCode: "000000", targetPublicKey: targetKey() },
    }),
  );
  await call("initOtpAuthV1", () =>
    client.initOtpAuth({
      type: "ACTIVITY_TYPE_INIT_OTP_AUTH",
      timestampMs: now(),
      organizationId,
      parameters: { otpType: "OTP_TYPE_EMAIL", contact: SANDBOX },
    }),
  );
  await call("emailAuthV2", () =>
    client.emailAuth({
      type: "ACTIVITY_TYPE_EMAIL_AUTH_V2",
      timestampMs: now(),
      organizationId,
      parameters: { email: SANDBOX, targetPublicKey: targetKey() },
    }),
  );
  await call("initUserEmailRecoveryV1", () =>
    client.initUserEmailRecovery({
      type: "ACTIVITY_TYPE_INIT_USER_EMAIL_RECOVERY",
      timestampMs: now(),
      organizationId,
      parameters: { email: SANDBOX, targetPublicKey: targetKey() },
    }),
  );
  await call("createUsersV2", () =>
    client.createUsers({
      type: "ACTIVITY_TYPE_CREATE_USERS_V2",
      timestampMs: now(),
      organizationId: parent,
      parameters: { users: [{ userName: "Old client user", apiKeys: [], authenticators: [], userTags: [] }] },
    }),
  );
  const policy = await call("createPolicyV3", () =>
    client.createPolicy({
      type: "ACTIVITY_TYPE_CREATE_POLICY_V3",
      timestampMs: now(),
      organizationId: parent,
      parameters: { policyName: "old client", effect: "EFFECT_ALLOW", condition: "false", notes: "" },
    }),
  );
  await call("updatePolicyV1", () =>
    client.updatePolicy({
      type: "ACTIVITY_TYPE_UPDATE_POLICY",
      timestampMs: now(),
      organizationId: parent,
      parameters: { policyId: policy.result && policy.result.policyId, policyName: "old client, renamed" },
    }),
  );
  return out;
}

main().then(
  (out) => process.stdout.write(JSON.stringify(out)),
  (error) => {
    process.stderr.write(String(error && error.stack ? error.stack : error));
    process.exit(1);
  },
);
