// Types for wallet-simulator-testing/register (register.js): a Node preload, used for its effect
// (`node --require wallet-simulator-testing/register app.js`).
import type { TrustedKeys } from "./trust";

/** The values the constants now hold. */
export declare const keys: TrustedKeys;
/** Whether ES modules are covered too (module.register exists: Node >= 20.6). */
export declare const esm: boolean;
