// The helper's other entry points, as a project's configuration files and browser tests use them;
// compiled with the same strict settings as usage.ts.
import { walletSimulatorTrust as esbuildTrust } from "wallet-simulator-testing/esbuild";
import { withSimulatorTrust } from "wallet-simulator-testing/jest";
import { addVirtualAuthenticator, waitForOtp } from "wallet-simulator-testing/playwright";
import { keys } from "wallet-simulator-testing/register";
import { SIMULATOR_KEYS, rewriteConstants, trustedKeys } from "wallet-simulator-testing/trust";
import { walletSimulatorTrust as viteTrust } from "wallet-simulator-testing/vite";
import { WalletSimulatorTrustPlugin } from "wallet-simulator-testing/webpack";
import { SIMULATOR_OTP_SIGNER_PUBLIC_KEY } from "wallet-simulator-testing/core2-shim";
import { connect } from "wallet-simulator-testing";
// the new name of /jest, the loader the webpack plugin adds, and the old spellings the package keeps
import { withSimulatorTrust as withTrust, CONSTANTS_PATTERN } from "wallet-simulator-testing/jest-trust";
import walletSimulatorTrustLoader = require("wallet-simulator-testing/webpack-loader");
import { ControlClient } from "wallet-simulator-testing/index.js";
import { keys as registered } from "wallet-simulator-testing/register.js";
import { patch } from "wallet-simulator-testing/core2-shim.js";

async function entryPoints(page: unknown): Promise<void> {
  const plugins = [esbuildTrust().name, viteTrust().name, new WalletSimulatorTrustPlugin()];
  const jestConfig = withSimulatorTrust({ testEnvironment: "node" });
  const transforms: Record<string, string> = jestConfig.transform;
  const authenticator = await addVirtualAuthenticator(page, { transport: "usb" });
  const code: string = await waitForOtp(connect(), "a@example.com", { after: 1, timeoutMs: 1000 });
  const rewritten: string | null = rewriteConstants("const X = 1;", "constants.js");
  const signer: string = SIMULATOR_KEYS.signer;
  console.log(plugins, transforms, authenticator.authenticatorId, code, rewritten, signer, keys, trustedKeys(),
    SIMULATOR_OTP_SIGNER_PUBLIC_KEY);
  await authenticator.remove();
  const loaded: string = walletSimulatorTrustLoader.call({ resourcePath: "constants.js" }, "const X = 1;");
  const sameConfig: Record<string, string> = withTrust({ testEnvironment: "node" }).transform;
  console.log(loaded, sameConfig, CONSTANTS_PATTERN, new ControlClient("http://127.0.0.1:1").url, registered, patch);
}

void entryPoints;
