// Builds Solana transactions and checks signed ones with @solana/web3.js v1 (what @turnkey/solana uses).
// Usage: node solana.js '{"build": {"payer", "cosigner", "recipient", "mint", "tokenFrom", "tokenTo", "table", "blockhash"}}'
//        node solana.js '{"verify": [{"hex", "versioned"}]}'
// "build" prints the unsigned wire transactions as @turnkey/solana sends them (hex, no 0x);
// "verify" deserializes each signed one the way @turnkey/solana reads the result and reports,
// per signature slot, its public key and whether the slot is empty, valid or invalid.
const web3 = require("@solana/web3.js");
const { ed25519 } = require("@noble/curves/ed25519");

const TOKEN_PROGRAM = new web3.PublicKey("TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA");
const unsigned = { requireAllSignatures: false, verifySignatures: false };

function transferChecked(source, mint, destination, owner, amount, decimals) {
  const data = Buffer.alloc(10);
  data.writeUInt8(12, 0);
  data.writeBigUInt64LE(BigInt(amount), 1);
  data.writeUInt8(decimals, 9);
  return new web3.TransactionInstruction({
    programId: TOKEN_PROGRAM,
    keys: [
      { pubkey: source, isSigner: false, isWritable: true },
      { pubkey: mint, isSigner: false, isWritable: false },
      { pubkey: destination, isSigner: false, isWritable: true },
      { pubkey: owner, isSigner: true, isWritable: false },
    ],
    data,
  });
}

function build(spec) {
  const key = (name) => new web3.PublicKey(spec[name]);
  const [payer, cosigner, recipient] = [key("payer"), key("cosigner"), key("recipient")];
  const instructions = [
    web3.SystemProgram.transfer({ fromPubkey: payer, toPubkey: recipient, lamports: 1234 }),
    web3.SystemProgram.transfer({ fromPubkey: cosigner, toPubkey: recipient, lamports: 99 }),
    transferChecked(key("tokenFrom"), key("mint"), key("tokenTo"), payer, 5000000, 6),
  ];
  const legacy = new web3.Transaction({ feePayer: payer, recentBlockhash: spec.blockhash }).add(...instructions);
  const table = new web3.AddressLookupTableAccount({
    key: key("table"),
    state: { deactivationSlot: BigInt("18446744073709551615"), lastExtendedSlot: 0, lastExtendedSlotStartIndex: 0,
             addresses: [key("recipient"), key("tokenTo"), key("mint")] },
  });
  const message = new web3.TransactionMessage({ payerKey: payer, recentBlockhash: spec.blockhash, instructions });
  const v0 = new web3.VersionedTransaction(message.compileToV0Message([table]));
  return {
    legacy: legacy.serialize(unsigned).toString("hex"),
    v0: Buffer.from(v0.serialize()).toString("hex"),
  };
}

function verify({ hex, versioned }) {
  const bytes = Buffer.from(hex, "hex");
  const tx = versioned ? web3.VersionedTransaction.deserialize(bytes) : web3.Transaction.from(bytes);
  const message = versioned ? tx.message.serialize() : tx.serializeMessage();
  const keys = versioned ? tx.message.staticAccountKeys : tx.signatures.map((s) => s.publicKey);
  const signatures = versioned ? tx.signatures : tx.signatures.map((s) => s.signature);
  return signatures.map((signature, i) => {
    const empty = !signature || signature.every((b) => b === 0);
    const valid = !empty && ed25519.verify(signature, message, keys[i].toBytes());
    return { publicKey: keys[i].toBase58(), state: empty ? "empty" : valid ? "valid" : "invalid" };
  });
}

const input = JSON.parse(process.argv[2]);
const out = input.build ? build(input.build) : input.verify.map(verify);
console.log(JSON.stringify(out));
