// The client version matrix's backend script: one released Turnkey JS client (an npm alias in
// package.json, or the copy a pinned package ships) drives the same steps against a running
// simulator. A step whose methods that client version lacks is skipped by name; any other step
// must pass. tests/clients/test_client_matrix.py runs it once per (client, version).
// Usage: node matrix.js '<JSON: client {package, version, path: [alias, nested...], kind},
//                         url, organizationId, userId, apiPublicKey, apiPrivateKey, enclaveKey, email>'
// Prints one JSON object: {package, version, steps: [{step, status, detail, seconds, sent}]}
// (sent: the activity types the step's requests carried).
const fs = require("fs");
const path = require("path");
const ethers = require("ethers");
const viem = require("viem");
const { p256 } = require("@noble/curves/p256");
const { sha256 } = require("@noble/hashes/sha256");
const { encryptOtpCodeToBundle } = require("@turnkey/crypto");

const input = JSON.parse(process.argv[2]);
const { client } = input;
const ETH = { curve: "CURVE_SECP256K1", pathFormat: "PATH_FORMAT_BIP32", path: "m/44'/60'/0'/0/0",
              addressFormat: "ADDRESS_FORMAT_ETHEREUM" };
const APP = "Matrix";
const sent = [];  // the activity types sent, reported with each step

// A package as Node would find it from inside the one before it in the path (aliases hide
// "@turnkey/http" behind another name, so require() by name cannot reach them).
function packageDir(names) {
  let dir = path.join(__dirname, "node_modules", names[0]);
  for (const name of names.slice(1)) {
    let from = dir;
    for (;;) {
      const candidate = path.join(from, "node_modules", name);
      if (fs.existsSync(path.join(candidate, "package.json"))) { dir = candidate; break; }
      if (from === __dirname) throw new Error(`${name} not found from ${dir}`);
      from = path.dirname(from);
    }
  }
  return dir;
}

function load(dir) {
  return { module: require(dir), version: JSON.parse(fs.readFileSync(path.join(dir, "package.json"))).version, dir };
}

// The activity type a client version sends for a method: sdk-server fills it in itself; with
// @turnkey/http the caller writes the one the version's generated types declare.
function sentType(pkg, method, kind) {
  if (kind === "http") {
    const types = fs.readFileSync(path.join(pkg.dir, "dist/__generated__/services/coordinator/public/v1/public_api.types.d.ts"), "utf8");
    const name = `v1${method[0].toUpperCase()}${method.slice(1)}Request: {`;
    const at = types.indexOf(name);
    return at < 0 ? null : declared(types.slice(at, types.indexOf("};", at)));
  }
  const base = fs.readFileSync(path.join(pkg.dir, "dist/__generated__/sdk-client-base.js"), "utf8");
  const at = base.indexOf(`this.${method} = async`);
  return at < 0 ? null : declared(base.slice(at, base.indexOf("};", at)));
}

function declared(block) {
  const found = /type: "(ACTIVITY_TYPE_[A-Z0-9_]+)"/.exec(block);
  return found ? found[1] : null;  // null: a query
}

const isVersion = (type, n) => type.endsWith(`_V${n}`);  // the parameters follow the version sent

// One interface over both client kinds: has(method), type(method), call(method, params, orgId).
function httpBackend(pkg) {
  const { TurnkeyClient, createActivityPoller } = pkg.module;
  const { ApiKeyStamper } = require(packageDir([...client.path, "@turnkey/api-key-stamper"]));
  const low = new TurnkeyClient({ baseUrl: input.url },
                                new ApiKeyStamper({ apiPublicKey: input.apiPublicKey, apiPrivateKey: input.apiPrivateKey }));
  return {
    has: (m) => typeof low[m] === "function",
    type: (m) => sentType(pkg, m, "http"),
    async call(m, params, organizationId = input.organizationId) {
      const type = sentType(pkg, m, "http");
      if (type) sent.push(type);
      if (!type) return low[m]({ organizationId, ...params });  // a query
      const poll = createActivityPoller({ client: low, requestFn: low[m] });
      const activity = await poll({ type, timestampMs: String(Date.now()), organizationId, parameters: params });
      if (activity.status !== "ACTIVITY_STATUS_COMPLETED") throw new Error(`${m}: ${activity.status}`);
      return { ...Object.values(activity.result).find((r) => r), activity };
    },
  };
}

function sdkServerBackend(pkg) {
  const api = new pkg.module.Turnkey({ apiBaseUrl: input.url, apiPublicKey: input.apiPublicKey,
                                       apiPrivateKey: input.apiPrivateKey,
                                       defaultOrganizationId: input.organizationId }).apiClient();
  return {
    api,
    has: (m) => typeof api[m] === "function",
    type: (m) => sentType(pkg, m, "sdk-server"),
    call(m, params, organizationId = input.organizationId) {
      const type = sentType(pkg, m, "sdk-server");
      if (type) sent.push(type);
      return api[m]({ ...params, organizationId });
    },
  };
}

function expect(condition, message) {
  if (!condition) throw new Error(message);
}

async function latestCode(contact) {
  const reply = await fetch(`${input.url}/_simulator/outbox?contact=${encodeURIComponent(contact)}`);
  const { messages } = await reply.json();
  expect(messages.length > 0, `no message to ${contact} in the outbox`);
  return messages[messages.length - 1];
}

function p256Key() {
  const priv = p256.utils.randomPrivateKey();
  return { priv, compressed: Buffer.from(p256.getPublicKey(priv, true)).toString("hex"),
           uncompressed: Buffer.from(p256.getPublicKey(priv, false)).toString("hex") };
}

// otp_login's clientSignature: raw r||s over the login message naming the verification token.
function loginSignature(token, sessionKey, tokenKey) {
  const claims = JSON.parse(Buffer.from(token.split(".")[1], "base64").toString());
  const message = JSON.stringify({ login: { publicKey: sessionKey.compressed }, tokenId: claims.id, type: "USAGE_TYPE_LOGIN" });
  const signature = p256.sign(sha256(Buffer.from(message)), tokenKey.priv).toCompactHex();
  return { publicKey: tokenKey.compressed, scheme: "CLIENT_SIGNATURE_SCHEME_API_P256", message, signature };
}

function backendSteps(b, state) {
  const email = input.email;
  return [
    ["whoami", ["getWhoami"], async () => {
      const me = await b.call("getWhoami", {});
      expect(me.userId === input.userId && me.organizationId === input.organizationId, `whoami ${JSON.stringify(me)}`);
    }],
    ["wallet", ["createWallet", "getWalletAccounts"], async () => {
      const made = await b.call("createWallet", { walletName: `matrix ${client.version}`, accounts: [ETH] });
      state.address = made.addresses[0];
      state.activityId = made.activity.id;
      const { accounts } = await b.call("getWalletAccounts", { walletId: made.walletId });
      expect(accounts.some((a) => a.address === state.address), "the new address is not among the wallet's accounts");
    }],
    ["sign_raw_payload", ["signRawPayload"], async () => {
      const hash = ethers.hashMessage(`matrix ${client.package}@${client.version}`);
      const { r, s, v } = await b.call("signRawPayload", { signWith: state.address, payload: hash,
                                                           encoding: "PAYLOAD_ENCODING_HEXADECIMAL", hashFunction: "HASH_FUNCTION_NO_OP" });
      const signer = ethers.recoverAddress(hash, ethers.Signature.from({ r: `0x${r}`, s: `0x${s}`, v: 27 + Number(v) }));
      expect(signer === state.address, `signature recovers ${signer}, not ${state.address}`);
    }],
    ["sign_transaction", ["signTransaction"], async () => {
      const unsigned = ethers.Transaction.from({ type: 2, chainId: 1, nonce: 0, to: ethers.ZeroAddress, value: 1n, gasLimit: 21000n,
                                                 maxFeePerGas: 30n * 10n ** 9n, maxPriorityFeePerGas: 10n ** 9n }).unsignedSerialized;
      const { signedTransaction } = await b.call("signTransaction", { signWith: state.address, type: "TRANSACTION_TYPE_ETHEREUM",
                                                                      unsignedTransaction: unsigned });
      const parsed = ethers.Transaction.from(signedTransaction.startsWith("0x") ? signedTransaction : `0x${signedTransaction}`);
      expect(parsed.from === state.address, `transaction signed by ${parsed.from}, not ${state.address}`);
    }],
    ["sub_organization", ["createSubOrganization"], async () => {
      const made = await b.call("createSubOrganization", {
        subOrganizationName: `matrix ${client.version}`, rootQuorumThreshold: 1,
        rootUsers: [{ userName: "Root", userEmail: email, apiKeys: [], authenticators: [], oauthProviders: [] }],
        wallet: { walletName: "Default", accounts: [ETH] },
      });
      state.subOrganizationId = made.subOrganizationId;
      state.rootUserId = made.rootUserIds[0];
      expect(made.wallet.addresses[0].startsWith("0x"), "the sub-organization's wallet has no address");
    }],
    ["users_and_api_keys", ["createUsers", "createApiKeys", "getApiKeys"], async () => {
      const user = { userName: "Matrix user", apiKeys: [], authenticators: [], userTags: [] };
      if (!isVersion(b.type("createUsers"), 2)) user.oauthProviders = [];
      const { userIds } = await b.call("createUsers", { users: [user] });
      state.userId = userIds[0];
      const key = p256Key();
      const { apiKeyIds } = await b.call("createApiKeys", { userId: state.userId,
        apiKeys: [{ apiKeyName: "matrix", publicKey: key.compressed, curveType: "API_KEY_CURVE_P256" }] });
      const { apiKeys } = await b.call("getApiKeys", { userId: state.userId });
      expect(apiKeys.map((k) => k.apiKeyId).join() === apiKeyIds.join(), "get_api_keys does not list the new key");
    }],
    ["policy", ["createPolicy"], async () => {
      const { policyId } = await b.call("createPolicy", { policyName: `matrix ${client.version}`, effect: "EFFECT_ALLOW",
        consensus: `approvers.any(user, user.id == '${state.userId}')`, condition: "activity.resource == 'WALLET'", notes: "" });
      expect(typeof policyId === "string" && policyId.length > 0, "no policyId");
    }],
    ["otp_auth", ["initOtpAuth", "otpAuth"], async () => {
      const start = { otpType: "OTP_TYPE_EMAIL", contact: email };
      if (isVersion(b.type("initOtpAuth"), 3)) start.appName = APP;
      const { otpId } = await b.call("initOtpAuth", start);
      const target = p256Key();
      const done = await b.call("otpAuth", { otpId, otpCode: (await latestCode(email)).code, targetPublicKey: target.uncompressed },
                                state.subOrganizationId);
      expect(done.userId === state.rootUserId && done.credentialBundle, `otp_auth ${JSON.stringify(done)}`);
    }],
    ["otp_login", ["initOtp", "verifyOtp", "otpLogin"], async () => {
      const initType = b.type("initOtp");
      const start = { otpType: "OTP_TYPE_EMAIL", contact: email };
      if (!initType.endsWith("INIT_OTP")) start.appName = APP;
      const started = await b.call("initOtp", start);
      const code = (await latestCode(email)).code;
      const session = p256Key();
      let verify = { otpId: started.otpId, otpCode: code };
      let tokenKey = null;
      if (isVersion(b.type("verifyOtp"), 2)) {
        tokenKey = session;
        verify = { otpId: started.otpId, encryptedOtpBundle: await encryptOtpCodeToBundle(code, started.otpEncryptionTargetBundle,
                                                                                          tokenKey.compressed, input.enclaveKey) };
      }
      const { verificationToken } = await b.call("verifyOtp", verify);
      const login = { verificationToken, publicKey: session.compressed };
      if (tokenKey) login.clientSignature = loginSignature(verificationToken, session, tokenKey);
      const done = await b.call("otpLogin", login, state.subOrganizationId);
      const claims = JSON.parse(Buffer.from(done.session.split(".")[1], "base64").toString());
      expect(claims.organization_id === state.subOrganizationId, `session for ${claims.organization_id}`);
    }],
    ["email_auth", ["emailAuth"], async () => {
      const params = { email, targetPublicKey: p256Key().uncompressed };
      if (isVersion(b.type("emailAuth"), 3)) params.emailCustomization = { appName: APP };
      const done = await b.call("emailAuth", params, state.subOrganizationId);
      expect(done.userId === state.rootUserId, `email_auth ${JSON.stringify(done)}`);
      expect((await latestCode(email)).credentialBundle, "no credential bundle mailed");
    }],
    ["email_recovery", ["initUserEmailRecovery"], async () => {
      const params = { email, targetPublicKey: p256Key().uncompressed };
      if (isVersion(b.type("initUserEmailRecovery"), 2)) params.emailCustomization = { appName: APP };
      const done = await b.call("initUserEmailRecovery", params, state.subOrganizationId);
      expect(done.userId === state.rootUserId, `init_user_email_recovery ${JSON.stringify(done)}`);
    }],
    ["activity_polling", ["getActivity"], async () => {
      const { activity } = await b.call("getActivity", { activityId: state.activityId });
      expect(activity.id === state.activityId && activity.status === "ACTIVITY_STATUS_COMPLETED", `activity ${activity.status}`);
    }],
  ];
}

// The chain-library signers: each signs through the sdk-server it ships, checked by the library.
function signerSteps(kind, pkg, server, state) {
  const account = async () => {
    if (kind === "viem") return pkg.module.createAccount({ client: server.api, organizationId: input.organizationId, signWith: state.address });
    return new pkg.module.TurnkeySigner({ client: server.api, organizationId: input.organizationId, signWith: state.address });
  };
  const tx = { chainId: 1, nonce: 0, to: ethers.ZeroAddress, value: 1n, maxFeePerGas: 30n * 10n ** 9n, maxPriorityFeePerGas: 10n ** 9n };
  if (kind === "viem") {
    return [
      ["viem_sign_message", ["createAccount"], async () => {
        const signature = await (await account()).signMessage({ message: "matrix" });
        expect(await viem.verifyMessage({ address: state.address, message: "matrix", signature }), "viem.verifyMessage refused");
      }],
      ["viem_sign_transaction", ["createAccount"], async () => {
        const serialized = await (await account()).signTransaction({ ...tx, gas: 21000n, type: "eip1559" });
        const signer = await viem.recoverTransactionAddress({ serializedTransaction: serialized });
        expect(signer === state.address, `transaction signed by ${signer}`);
      }],
    ];
  }
  return [
    ["ethers_sign_message", ["TurnkeySigner"], async () => {
      const recovered = ethers.verifyMessage("matrix", await (await account()).signMessage("matrix"));
      expect(recovered === state.address, `message signed by ${recovered}`);
    }],
    ["ethers_sign_transaction", ["TurnkeySigner"], async () => {
      const parsed = ethers.Transaction.from(await (await account()).signTransaction({ ...tx, type: 2, gasLimit: 21000n }));
      expect(parsed.from === state.address, `transaction signed by ${parsed.from}`);
    }],
  ];
}

async function main() {
  const pkg = load(packageDir(client.path));
  expect(pkg.version === client.version, `${client.path.join(" > ")} is ${pkg.version}, the matrix says ${client.version}`);
  let backend;
  let steps;
  let backendVersion = null;  // viem and ethers: the @turnkey/sdk-server they ship
  const state = {};
  if (client.kind === "http") {
    backend = httpBackend(pkg);
    steps = backendSteps(backend, state);
  } else if (client.kind === "sdk-server") {
    backend = sdkServerBackend(pkg);
    steps = backendSteps(backend, state);
  } else {
    const server = load(packageDir([...client.path, "@turnkey/sdk-server"]));
    backendVersion = server.version;
    backend = sdkServerBackend(server);
    const has = backend.has;
    backend.has = (m) => (m === "createAccount" || m === "TurnkeySigner" ? typeof pkg.module[m] === "function" : has(m));
    steps = [...backendSteps(backend, state), ...signerSteps(client.kind, pkg, backend, state)];
  }
  const out = { package: client.package, version: pkg.version, sdkServer: backendVersion, steps: [] };
  for (const [step, methods, run] of steps) {
    const missing = methods.filter((m) => !backend.has(m));
    if (missing.length) {
      out.steps.push({ step, status: "skipped", detail: `skipped: ${step} not in ${client.package}@${pkg.version} (no ${missing.join(", ")})` });
      continue;
    }
    const began = Date.now();
    sent.length = 0;
    try {
      await run();
      out.steps.push({ step, status: "passed", seconds: (Date.now() - began) / 1000, sent: [...sent] });
    } catch (error) {
      out.steps.push({ step, status: "failed", sent: [...sent],
                       detail: String(error && error.stack ? error.stack : error).slice(0, 1500) });
    }
  }
  return out;
}

main().then((out) => console.log(JSON.stringify(out)), (e) => { console.error(e); process.exit(1); });
