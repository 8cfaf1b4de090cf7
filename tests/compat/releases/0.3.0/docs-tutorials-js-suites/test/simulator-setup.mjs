import { createGlobalSetup } from "wallet-simulator-testing";

export default createGlobalSetup({ seed: 1 });
