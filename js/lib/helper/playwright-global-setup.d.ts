// Types for wallet-simulator-testing/playwright-global-setup (Playwright's globalSetup module).
/** Starts the simulator simulatorConfig() described; resolves to the teardown that stops it. */
declare function globalSetup(): Promise<() => Promise<void>>;
export = globalSetup;
