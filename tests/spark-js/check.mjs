// The Spark SDK's own code answering for what the simulator computed: reads one JSON request on
// stdin, writes one JSON answer on stdout. Used by tests/clients/test_spark_js.py.
import fs from "node:fs";
import {
  decodeSparkAddress,
  encodeSparkAddress,
  getSparkFrost,
  getTransferPackageSigningPayload,
} from "@buildonspark/spark-sdk";
import { ClaimLeafKeyTweaks, SecretShare, SendLeafKeyTweaks } from "@buildonspark/spark-sdk/proto/spark";

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
    case "shares": {
      // Each operator decrypts its package (ECIES), decodes the SecretShare protobuf and checks the
      // share against the Feldman proofs; a threshold of them recovers the secret.
      const frost = getSparkFrost();
      const shares = [];
      for (const pkg of request.packages) {
        const plain = await frost.decryptEcies(hex(pkg.encryptedPackage), hex(pkg.privateKey));
        const decoded = SecretShare.decode(plain);
        await frost.validateShare(decoded.secretShare, pkg.index, request.threshold, decoded.proofs);
        shares.push({ threshold: request.threshold, index: pkg.index, share: decoded.secretShare, proofs: decoded.proofs });
      }
      const recovered = await frost.recoverSecret(shares.slice(0, request.threshold));
      return { recovered: unhex(recovered), proofs: shares[0].proofs.map(unhex) };
    }
    case "send":
    case "claim": {
      // Each operator opens its package as the operators' protobuf (SendLeafKeyTweaks or
      // ClaimLeafKeyTweaks), checks its share of the first leaf's tweak against the Feldman proofs;
      // a threshold of shares recovers the tweak.
      const frost = getSparkFrost();
      const Message = request.op === "send" ? SendLeafKeyTweaks : ClaimLeafKeyTweaks;
      const shares = [];
      let leaves;
      for (const pkg of request.packages) {
        const decoded = Message.decode(await frost.decryptEcies(hex(pkg.encryptedPackage), hex(pkg.privateKey)));
        leaves = request.op === "send" ? decoded.leavesToSend : decoded.leavesToReceive;
        const tweak = leaves[0].secretShareTweak;
        await frost.validateShare(tweak.secretShare, pkg.index, request.threshold, tweak.proofs);
        shares.push({ threshold: request.threshold, index: pkg.index, share: tweak.secretShare, proofs: tweak.proofs });
      }
      const answer = {
        recovered: unhex(await frost.recoverSecret(shares.slice(0, request.threshold))),
        shares: shares.map((s) => unhex(s.share)),
        leaves: leaves.map((leaf) => ({
          leafId: leaf.leafId,
          pubkeySharesTweak: Object.fromEntries(Object.entries(leaf.pubkeySharesTweak).map(([k, v]) => [k, unhex(v)])),
          ...(request.op === "send"
            ? {
                secretCipher: unhex(leaf.secretCipher),
                signature: unhex(leaf.signature),
                refundSignature: unhex(leaf.refundSignature),
              }
            : {}),
        })),
      };
      if (request.op === "send") {
        const keyTweakPackage = Object.fromEntries(request.packages.map((p) => [p.operatorId, hex(p.encryptedPackage)]));
        answer.transferSigningPayload = unhex(getTransferPackageSigningPayload(request.transferId, { keyTweakPackage }));
      }
      return answer;
    }
    default:
      throw new Error(`unknown op ${request.op}`);
  }
}

process.stdout.write(JSON.stringify(await answer(input)));
