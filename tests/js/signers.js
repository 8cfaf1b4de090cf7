// The signers people use, unmodified, against a running simulator: @turnkey/viem, @turnkey/ethers and
// @turnkey/solana over an @turnkey/http TurnkeyClient, and @turnkey/http 2.x (turnkey-http-v2), whose
// client sends no JSON Content-Type. Every result is checked by the chain library itself (viem, ethers,
// @solana/web3.js and @noble/curves): recovered addresses and verified signatures.
// Usage: node signers.js '{"url", "organizationId", "apiPublicKey", "apiPrivateKey", "eth", "sol", "delegate", "authorityKey"}'
// Prints {viem: {...}, ethers: {...}, solana: {...}, httpV2: {...}}: per case {ok, signer?} or {error}.
// Watch (never change) what the 2.x client's cross-fetch (node-fetch over http.request) puts on the wire.
const http = require("http");
const wire = [];
const originalRequest = http.request;
http.request = function observed(...args) {
  const request = originalRequest.apply(this, args);
  wire.push({ path: request.path, contentType: request.getHeader("content-type") ?? null });
  return request;
};
const { TurnkeyClient } = require("@turnkey/http");
const { ApiKeyStamper } = require("@turnkey/api-key-stamper");
const { TurnkeyClient: TurnkeyClientV2 } = require("turnkey-http-v2");
const { createAccount } = require("@turnkey/viem");
const { TurnkeySigner: EthersSigner } = require("@turnkey/ethers");
const { TurnkeySigner: SolanaSigner } = require("@turnkey/solana");
const viem = require("viem");
const { privateKeyToAccount } = require("viem/accounts");
const { recoverAuthorizationAddress } = require("viem/utils");
const ethers = require("ethers");
const web3 = require("@solana/web3.js");
const { ed25519 } = require("@noble/curves/ed25519");

const given = JSON.parse(process.argv[2]);
const stamper = new ApiKeyStamper({ apiPublicKey: given.apiPublicKey, apiPrivateKey: given.apiPrivateKey });
const client = new TurnkeyClient({ baseUrl: given.url }, stamper);
const clientV2 = new TurnkeyClientV2({ baseUrl: given.url }, stamper);
const organizationId = given.organizationId;
const gwei = (n) => viem.parseGwei(String(n));
const same = (a, b) => a.toLowerCase() === b.toLowerCase();
const typedData = {
  domain: { name: "USD Coin", version: "2", chainId: 1, verifyingContract: "0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48" },
  types: {
    Permit: [
      { name: "owner", type: "address" }, { name: "spender", type: "address" }, { name: "value", type: "uint256" },
      { name: "nonce", type: "uint256" }, { name: "deadline", type: "uint256" },
    ],
  },
  primaryType: "Permit",
  message: { owner: given.eth, spender: given.delegate, value: 10n ** 6n, nonce: 0n, deadline: 1893456000n },
};

async function check(cases) {
  const out = {};
  for (const [name, run] of Object.entries(cases)) {
    try {
      out[name] = await run();
    } catch (error) {
      out[name] = { error: String(error && error.stack ? error.stack : error).slice(0, 800) };
    }
  }
  return out;
}

async function viemCases() {
  const account = await createAccount({ client, organizationId, signWith: given.eth });
  const common = { to: given.delegate, nonce: 3, gas: 50000n, value: 12345n, data: "0xa9059cbb" };
  const fees = { maxFeePerGas: gwei(30), maxPriorityFeePerGas: gwei(2) };
  const authority = privateKeyToAccount(given.authorityKey);
  const signed = async (tx) => {
    const serialized = await account.signTransaction(tx);
    const signer = await viem.recoverTransactionAddress({ serializedTransaction: serialized });
    return { ok: same(signer, given.eth), signer, type: viem.parseTransaction(serialized).type };
  };
  return check({
    legacy: () => signed({ ...common, chainId: 1, gasPrice: gwei(20), type: "legacy" }),
    eip2930: () => signed({ ...common, chainId: 11155111, gasPrice: gwei(20), accessList: [{ address: given.delegate, storageKeys: [viem.pad("0x01")] }], type: "eip2930" }),
    eip1559: () => signed({ ...common, chainId: 8453, ...fees, type: "eip1559" }),
    eip7702: async () => {
      const authorization = await authority.signAuthorization({ contractAddress: given.delegate, chainId: 1, nonce: 0 });
      return signed({ ...common, chainId: 1, ...fees, authorizationList: [authorization], type: "eip7702" });
    },
    message: async () => {
      const signature = await account.signMessage({ message: "hello from viem" });
      return { ok: await viem.verifyMessage({ address: given.eth, message: "hello from viem", signature }) };
    },
    // through a wallet client, as apps call it: its signTypedData action adds the EIP712Domain type
    typedData: async () => {
      const wallet = viem.createWalletClient({ account, transport: viem.custom({ request: async () => null }) });
      const signature = await wallet.signTypedData(typedData);
      return { ok: await viem.verifyTypedData({ address: given.eth, ...typedData, signature }) };
    },
    authorization: async () => {
      const authorization = await account.signAuthorization({ contractAddress: given.delegate, chainId: 8453, nonce: 5 });
      const signer = await recoverAuthorizationAddress({ authorization });
      return { ok: same(signer, given.eth), signer };
    },
  });
}

async function ethersCases() {
  const signer = new EthersSigner({ client, organizationId, signWith: given.eth });
  const common = { to: given.delegate, nonce: 1, gasLimit: 60000n, value: 7n, data: "0x" };
  const signed = async (tx) => {
    const parsed = ethers.Transaction.from(await signer.signTransaction(tx));
    return { ok: same(parsed.from, given.eth), signer: parsed.from, type: parsed.type };
  };
  const domain = typedData.domain;
  return check({
    legacy: () => signed({ ...common, type: 0, chainId: 137, gasPrice: gwei(50) }),
    eip2930: () => signed({ ...common, type: 1, chainId: 137, gasPrice: gwei(50), accessList: [{ address: given.delegate, storageKeys: [] }] }),
    eip1559: () => signed({ ...common, type: 2, chainId: 10, maxFeePerGas: gwei(30), maxPriorityFeePerGas: gwei(2) }),
    message: async () => {
      const recovered = ethers.verifyMessage("hello from ethers", await signer.signMessage("hello from ethers"));
      return { ok: same(recovered, given.eth), signer: recovered };
    },
    typedData: async () => {
      const signature = await signer.signTypedData(domain, typedData.types, typedData.message);
      const recovered = ethers.verifyTypedData(domain, typedData.types, typedData.message, signature);
      return { ok: same(recovered, given.eth), signer: recovered };
    },
  });
}

function solanaTransfer(payer, lamports) {
  const from = new web3.PublicKey(payer);
  return web3.SystemProgram.transfer({ fromPubkey: from, toPubkey: web3.Keypair.generate().publicKey, lamports });
}

function legacyTx() {
  const tx = new web3.Transaction({ recentBlockhash: web3.Keypair.generate().publicKey.toBase58(), feePayer: new web3.PublicKey(given.sol) });
  return tx.add(solanaTransfer(given.sol, 1000));
}

function v0Tx() {
  const message = new web3.TransactionMessage({
    payerKey: new web3.PublicKey(given.sol),
    recentBlockhash: web3.Keypair.generate().publicKey.toBase58(),
    instructions: [solanaTransfer(given.sol, 2000)],
  }).compileToV0Message();
  return new web3.VersionedTransaction(message);
}

function verified(tx) {
  if (tx instanceof web3.VersionedTransaction) {
    const ok = ed25519.verify(tx.signatures[0], tx.message.serialize(), new web3.PublicKey(given.sol).toBytes());
    return { ok, version: tx.version };
  }
  return { ok: tx.verifySignatures(), version: "legacy" };
}

async function solanaCases() {
  const signer = new SolanaSigner({ organizationId, client });
  return check({
    legacy: async () => verified(await signer.signTransaction(legacyTx(), given.sol)),
    v0: async () => verified(await signer.signTransaction(v0Tx(), given.sol)),
    addSignatureLegacy: async () => {
      const tx = legacyTx();
      await signer.addSignature(tx, given.sol);
      return verified(tx);
    },
    addSignatureV0: async () => {
      const tx = v0Tx();
      await signer.addSignature(tx, given.sol);
      return verified(tx);
    },
    signAll: async () => {
      const txs = await signer.signAllTransactions([legacyTx(), v0Tx()], given.sol);
      return { ok: txs.every((tx) => verified(tx).ok), count: txs.length };
    },
    message: async () => {
      const message = new TextEncoder().encode("hello from solana");
      const signature = await signer.signMessage(message, given.sol);
      return { ok: ed25519.verify(signature, message, new web3.PublicKey(given.sol).toBytes()) };
    },
  });
}

// The seven calls older setups (cosmjs, EIP-1193 providers on @turnkey/http 2.x) make, each a POST whose
// body is a string and whose headers carry no Content-Type (fetch then sends text/plain).
async function httpV2Cases() {
  const now = () => String(Date.now());
  const hash = viem.hashMessage("hello from http 2.x");
  const unsigned = viem.serializeTransaction({ to: given.delegate, nonce: 0, gas: 21000n, value: 1n, chainId: 1, ...{ maxFeePerGas: gwei(30), maxPriorityFeePerGas: gwei(1) }, type: "eip1559" });
  let activityId;
  return check({
    getWhoami: async () => ({ ok: (await clientV2.getWhoami({ organizationId })).organizationId === organizationId }),
    getWallets: async () => ({ ok: (await clientV2.getWallets({ organizationId })).wallets.length > 0 }),
    getWalletAccounts: async () => {
      const { wallets } = await clientV2.getWallets({ organizationId });
      const accounts = await Promise.all(wallets.map((w) => clientV2.getWalletAccounts({ organizationId, walletId: w.walletId })));
      return { ok: accounts.some((a) => a.accounts.some((x) => same(x.address, given.eth))) };
    },
    signRawPayload: async () => {
      const { activity } = await clientV2.signRawPayload({
        type: "ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2", organizationId, timestampMs: now(),
        parameters: { signWith: given.eth, payload: hash, encoding: "PAYLOAD_ENCODING_HEXADECIMAL", hashFunction: "HASH_FUNCTION_NO_OP" },
      });
      activityId = activity.id;
      const { r, s, v } = activity.result.signRawPayloadResult;
      const signer = await viem.recoverAddress({ hash, signature: viem.serializeSignature({ r: `0x${r}`, s: `0x${s}`, yParity: Number(v) }) });
      return { ok: same(signer, given.eth), signer };
    },
    signRawPayloads: async () => {
      const { activity } = await clientV2.signRawPayloads({
        type: "ACTIVITY_TYPE_SIGN_RAW_PAYLOADS", organizationId, timestampMs: now(),
        parameters: { signWith: given.eth, payloads: [hash, hash], encoding: "PAYLOAD_ENCODING_HEXADECIMAL", hashFunction: "HASH_FUNCTION_NO_OP" },
      });
      return { ok: activity.result.signRawPayloadsResult.signatures.length === 2 };
    },
    // what @turnkey/eip-1193-provider's eth_signTransaction sends through this client
    signTransaction: async () => {
      const { activity } = await clientV2.signTransaction({
        type: "ACTIVITY_TYPE_SIGN_TRANSACTION_V2", organizationId, timestampMs: now(),
        parameters: { signWith: viem.getAddress(given.eth), type: "TRANSACTION_TYPE_ETHEREUM", unsignedTransaction: unsigned },
      });
      const serializedTransaction = `0x${activity.result.signTransactionResult.signedTransaction}`;
      const signer = await viem.recoverTransactionAddress({ serializedTransaction });
      return { ok: same(signer, given.eth), signer };
    },
    getActivity: async () => ({ ok: (await clientV2.getActivity({ organizationId, activityId })).activity.id === activityId }),
  });
}

async function main() {
  const out = { viem: await viemCases(), ethers: await ethersCases(), solana: await solanaCases() };
  const before = wire.length;
  out.httpV2 = await httpV2Cases();
  out.httpV2Wire = wire.slice(before);
  console.log(JSON.stringify(out, (_, value) => (typeof value === "bigint" ? value.toString() : value)));
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
