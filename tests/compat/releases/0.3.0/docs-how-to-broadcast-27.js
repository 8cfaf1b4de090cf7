const assert = require("node:assert/strict");
const { TurnkeyClient } = require("@turnkey/http");
const { ApiKeyStamper } = require("@turnkey/api-key-stamper");
const { generatePrivateKey, privateKeyToAccount } = require("viem/accounts");
const { keccak256 } = require("viem");

(async () => {
  const client = new TurnkeyClient({ baseUrl: "http://127.0.0.1:8080" }, new ApiKeyStamper({
    apiPublicKey: "02321b31e86db8b83121f9b7f7e13544d8796ff158125bec4e6493e717f75a5762",
    apiPrivateKey: "b02b91437e30e7c99682f43dfef819be237b9afba4d7131ac9f087daebb34992" }));
  // a transaction signed anywhere: here by a throwaway local key
  const account = privateKeyToAccount(generatePrivateKey());
  const signedTransaction = await account.signTransaction({ chainId: 1, nonce: 0, to: account.address, value: 1n,
    gas: 21000n, maxFeePerGas: 10_000_000_000n, maxPriorityFeePerGas: 1_000_000_000n });
  const { activity } = await client.ethSendRawTransaction({
    type: "ACTIVITY_TYPE_ETH_SEND_RAW_TRANSACTION", timestampMs: String(Date.now()),
    organizationId: "5f1c0c5e-0000-4000-8000-00000000a001",
    parameters: { signedTransaction, caip2: "eip155:1" },
  });
  const { transactionHash } = activity.result.ethSendRawTransactionResult;
  assert.equal(transactionHash, keccak256(signedTransaction));   // the real hash of the signed bytes
  console.log(activity.status, transactionHash);
})().catch((error) => { console.error(error); process.exit(1); });
