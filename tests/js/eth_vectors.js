// Builds unsigned Ethereum transactions with viem and ethers, and checks signed ones, EIP-712 digests and
// EIP-7702 authorization digests with both (what @turnkey/viem and @turnkey/ethers build on).
// Usage: node eth_vectors.js '{"build": {"to", "delegate", "authorityKey"},
//                              "verify": {"transactions": [hex], "typedData": [json], "authorizations": [json]}}'
// (either key or both; the answer has the same keys). "build" gives {name: unsigned hex without 0x} as
// @turnkey/viem and @turnkey/ethers send them; "verify" gives, per signed transaction, the signer viem and ethers recover and their re-serializations,
// per typed-data document viem's hashTypedData and ethers' TypedDataEncoder.hash with the payloads
// @turnkey/viem (serializeTypedData) and @turnkey/ethers (getPayload) would send, and per authorization
// viem's hashAuthorization.
const viem = require("viem");
const { hashAuthorization } = require("viem/utils");
const { privateKeyToAccount } = require("viem/accounts");
const ethers = require("ethers");

const strip = (hex) => hex.replace(/^0x/, "");
const gwei = (n) => viem.parseGwei(String(n));

async function build(spec) {
  const common = { to: spec.to, nonce: 7, gas: 60000n, value: 1234567890123456789n, data: "0xa9059cbb00" };
  const fees = { maxFeePerGas: gwei(30), maxPriorityFeePerGas: gwei(2) };
  const accessList = [{ address: spec.to, storageKeys: [viem.pad("0x01"), viem.pad("0x02")] }];
  const authority = privateKeyToAccount(spec.authorityKey);
  const authorization = await authority.signAuthorization({ contractAddress: spec.delegate, chainId: 1, nonce: 3 });
  const viemTxs = {
    legacy_eip155: { ...common, chainId: 1, gasPrice: gwei(20), type: "legacy" },
    legacy_no_chain: { ...common, gasPrice: gwei(20), type: "legacy" },
    contract_creation: { nonce: 0, gas: 500000n, gasPrice: gwei(1), data: "0x6080604052", chainId: 11155111, type: "legacy" },
    eip2930: { ...common, chainId: 11155111, gasPrice: gwei(20), accessList, type: "eip2930" },
    eip1559: { ...common, chainId: 8453, ...fees, accessList, type: "eip1559" },
    eip1559_huge_value: { ...common, chainId: 1, ...fees, value: 2n ** 200n, data: "0x", type: "eip1559" },
    eip4844: {
      ...common, chainId: 1, ...fees, maxFeePerBlobGas: gwei(3), type: "eip4844",
      blobVersionedHashes: [`0x01${"ab".repeat(31)}`, `0x01${"cd".repeat(31)}`],
    },
    eip7702: { ...common, chainId: 1, ...fees, authorizationList: [authorization], type: "eip7702" },
  };
  const out = {};
  for (const [name, tx] of Object.entries(viemTxs)) out[`viem_${name}`] = strip(viem.serializeTransaction(tx));
  const ethersTxs = {
    legacy: { type: 0, chainId: 137, gasPrice: gwei(50), ...common, gasLimit: common.gas },
    eip2930: { type: 1, chainId: 137, gasPrice: gwei(50), accessList, ...common, gasLimit: common.gas },
    eip1559: { type: 2, chainId: 10, ...fees, ...common, gasLimit: common.gas },
  };
  for (const [name, tx] of Object.entries(ethersTxs)) {
    out[`ethers_${name}`] = strip(ethers.Transaction.from(tx).unsignedSerialized);
  }
  return { transactions: out, call: encodeCall(spec) };
}

// Calldata for a function with a struct, a dynamic array, an unnamed argument and signed integers,
// encoded by ethers' Interface from the ABI JSON a user would store as a smart contract interface.
function encodeCall(spec) {
  const abi = [
    { type: "event", name: "Swapped", inputs: [{ name: "who", type: "address", indexed: true }] },
    {
      type: "function",
      name: "swap",
      stateMutability: "nonpayable",
      outputs: [],
      inputs: [
        { name: "route", type: "tuple", components: [{ name: "pool", type: "address" }, { name: "fee", type: "uint24" }] },
        { name: "amounts", type: "uint256[]" },
        { name: "", type: "bytes32" },
        { name: "hops", type: "tuple[]", components: [{ name: "to", type: "address" }, { name: "data", type: "bytes" }] },
        { name: "exact", type: "bool" },
        { name: "memo", type: "string" },
        { name: "delta", type: "int64" },
      ],
    },
  ];
  const args = [
    [spec.to, 3000],
    [1n, 2n ** 200n],
    `0x${"ee".repeat(32)}`,
    [[spec.delegate, "0xCAFE"]],
    true,
    "gm",
    -5n,
  ];
  return { abi: JSON.stringify(abi), data: strip(new ethers.Interface(abi).encodeFunctionData("swap", args)) };
}

async function checkTransaction(hex) {
  const serialized = `0x${hex}`;
  const parsed = viem.parseTransaction(serialized);
  const tx = ethers.Transaction.from(serialized);
  return {
    viemSigner: (await viem.recoverTransactionAddress({ serializedTransaction: serialized })).toLowerCase(),
    viemReserialized: strip(viem.serializeTransaction(parsed, { r: parsed.r, s: parsed.s, v: parsed.v, yParity: parsed.yParity })),
    viemType: parsed.type,
    ethersSigner: tx.from.toLowerCase(),
    ethersReserialized: strip(tx.serialized),
    ethersType: tx.type,
  };
}

// ethers cannot hash every document (no message when the primary type is EIP712Domain, several root types):
// null then, and the test relies on viem alone.
function withEthers(compute) {
  try {
    return compute();
  } catch {
    return null;
  }
}

function checkTypedData(text) {
  const doc = JSON.parse(text);
  const { EIP712Domain, ...types } = doc.types;
  return {
    viem: viem.hashTypedData(doc),
    // viem's signTypedData action adds the domain's type before handing the document to the account
    viemSerialized: viem.serializeTypedData({
      ...doc,
      types: { EIP712Domain: viem.getTypesForEIP712Domain({ domain: doc.domain }), ...doc.types },
    }),
    ethers: withEthers(() => ethers.TypedDataEncoder.hash(doc.domain, types, doc.message)),
    ethersPayload: withEthers(() => JSON.stringify(ethers.TypedDataEncoder.getPayload(doc.domain, types, doc.message))),
  };
}

async function verify(request) {
  const transactions = [];
  for (const hex of request.transactions || []) transactions.push(await checkTransaction(hex));
  const typedData = (request.typedData || []).map(checkTypedData);
  const authorizations = (request.authorizations || []).map((text) => {
    const { address, chainId, nonce } = JSON.parse(text);
    return hashAuthorization({ contractAddress: address, chainId: Number(chainId), nonce: Number(nonce) });
  });
  return { transactions, typedData, authorizations };
}

async function main() {
  const request = JSON.parse(process.argv[2]);
  const out = {};
  if (request.build) out.build = await build(request.build);
  if (request.verify) out.verify = await verify(request.verify);
  process.stdout.write(JSON.stringify(out));
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
