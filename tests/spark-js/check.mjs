// The Spark SDK's own code answering for what the simulator computed: reads one JSON request on
// stdin, writes one JSON answer on stdout. Used by tests/test_spark_js.py.
import fs from "node:fs";
import { decodeSparkAddress, encodeSparkAddress, getSparkFrost } from "@buildonspark/spark-sdk";

const hex = (h) => Uint8Array.from(Buffer.from(h, "hex"));
const unhex = (b) => Buffer.from(b).toString("hex");
const input = JSON.parse(fs.readFileSync(0, "utf8"));

async function answer(request) {
  switch (request.op) {
    case "address":
      return {
        encoded: encodeSparkAddress({ identityPublicKey: request.publicKey, network: request.network }),
        decoded: decodeSparkAddress(request.address, request.network).identityPublicKey,
      };
    case "frost": {
      // The user's share as the SDK's own signer computes it from the same key and nonces.
      const commitments = Object.fromEntries(
        request.operatorCommitments.map((c) => [c.id, { hiding: hex(c.hiding), binding: hex(c.binding) }]),
      );
      const share = await getSparkFrost().signFrost({
        message: hex(request.message),
        keyPackage: {
          secretKey: hex(request.secretKey),
          publicKey: hex(request.publicKey),
          verifyingKey: hex(request.verifyingKey),
        },
        nonce: { hiding: hex(request.nonce.hiding), binding: hex(request.nonce.binding) },
        selfCommitment: { hiding: hex(request.selfCommitment.hiding), binding: hex(request.selfCommitment.binding) },
        statechainCommitments: commitments,
        adaptorPubKey: request.adaptorPublicKey ? hex(request.adaptorPublicKey) : undefined,
      });
      return { signatureShare: unhex(share) };
    }
    default:
      throw new Error(`unknown op ${request.op}`);
  }
}

process.stdout.write(JSON.stringify(await answer(input)));
