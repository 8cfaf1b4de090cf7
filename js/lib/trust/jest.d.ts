// Types for wallet-simulator-testing/jest-trust, and its old name wallet-simulator-testing/jest (jest.js).

/** jest's transformer interface: the constants file rewritten, any other file unchanged. */
export declare function process(source: string, filename: string): { code: string };
export declare function getCacheKey(source: string, filename: string): string;
/** The transform's key in `transform`: @turnkey/crypto's constants files at any depth. */
export declare const CONSTANTS_PATTERN: string;
/** `config` with the transform added and @turnkey/crypto's constants files no longer ignored. */
export declare function withSimulatorTrust<T extends Record<string, unknown>>(
  config?: T,
): T & { transform: Record<string, string>; transformIgnorePatterns: string[] };
