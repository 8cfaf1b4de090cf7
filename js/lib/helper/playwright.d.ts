// Types for wallet-simulator-testing/playwright (playwright.js).
import type { ControlClient, Simulator } from "./index";

/** DevTools' WebAuthn.VirtualAuthenticatorOptions (the fields this helper sets by default, and any other). */
export interface VirtualAuthenticatorOptions {
  protocol?: "ctap2" | "u2f";
  ctap2Version?: "ctap2_0" | "ctap2_1";
  transport?: "usb" | "nfc" | "ble" | "cable" | "internal";
  hasResidentKey?: boolean;
  hasUserVerification?: boolean;
  isUserVerified?: boolean;
  automaticPresenceSimulation?: boolean;
  [option: string]: unknown;
}

/** DevTools' WebAuthn.Credential: ids, handle and key in base64 (privateKey: PKCS#8 DER). */
export interface VirtualCredential {
  credentialId: string;
  isResidentCredential: boolean;
  rpId?: string;
  privateKey: string;
  userHandle?: string;
  signCount: number;
  [field: string]: unknown;
}

export interface VirtualAuthenticator {
  authenticatorId: string;
  /** The CDP session it lives on (Playwright's CDPSession or Puppeteer's). */
  session: { send(method: string, params?: object): Promise<any> };
  credentials(): Promise<VirtualCredential[]>;
  addCredential(credential: VirtualCredential): Promise<void>;
  remove(): Promise<void>;
}

export declare const AUTHENTICATOR_DEFAULTS: Readonly<VirtualAuthenticatorOptions>;

/** Chrome's virtual authenticator for a Playwright (or Puppeteer) Chromium page. */
export declare function addVirtualAuthenticator(
  page: unknown,
  options?: VirtualAuthenticatorOptions,
): Promise<VirtualAuthenticator>;

export interface WaitForOtpOptions {
  /** Default 10000 (react-wallet-kit waits up to 5 s for a captcha token before it asks for a code). */
  timeoutMs?: number;
  /** Default 20: the pause between polls of a server that does not long-poll (no ?wait=). */
  intervalMs?: number;
  /** How many messages to this contact were already seen: wait for the next one (default 0: the first). */
  after?: number;
  /** Control token when `simulator` is a url (default $WALLET_SIMULATOR_CONTROL_TOKEN). */
  token?: string;
}

/**
 * The OTP code the simulator "sent" to `contact` (read from GET /_simulator/outbox): the first beyond the
 * `after` already seen (0 by default), as ControlClient.waitForOtp, which this calls with a 10 s wait.
 */
export declare function waitForOtp(
  simulator: Simulator | ControlClient | string,
  contact: string,
  options?: WaitForOtpOptions,
): Promise<string>;

// @playwright/test ------------------------------------------------------------------------------
import type { StartOptions, Credentials, ReadyLine, JournalEntry, Json } from "./index";
// @playwright/test is an optional peer: a project without it still compiles these types (the helpers
// above need none of it), and `test` / `expect` are then untyped.
// @ts-ignore
import type * as PlaywrightTest from "@playwright/test";

export interface SimulatorConfigOptions extends StartOptions {
  /** The app's dev server port (default: a free one, in $WALLET_SIMULATOR_APP_PORT). */
  appPort?: number;
  /** The app's origin, added as a --cors-origin (default http://localhost:<appPort>). */
  appOrigin?: string;
}

/** The addresses an app needs, known before the simulator starts (simulatorConfig). */
export interface SimulatorAddresses {
  url: string;
  proxyUrl: string;
  organizationId: string;
  authProxyConfigId: string;
  exportIframeUrl: string;
  importIframeUrl: string;
  authIframeUrl: string;
}

export interface SimulatorConfig extends SimulatorAddresses {
  port: number;
  proxyPort: number;
  appPort: number;
  appOrigin: string;
  /** The path Playwright's `globalSetup` takes: starts the simulator, stops it after the run. */
  globalSetup: string;
  /**
   * The addresses as variables for `webServer.env`: `${prefix}TURNKEY_API_BASE_URL`, `_AUTH_PROXY_URL`,
   * `_AUTH_PROXY_CONFIG_ID`, `_ORGANIZATION_ID`, `_EXPORT_IFRAME_URL`, `_IMPORT_IFRAME_URL`, and PORT
   * (the app's port). prefix: "VITE_" (default) for Vite, "NEXT_PUBLIC_" for Next.js.
   */
  env(prefix?: string): Record<string, string>;
}

/** Ports fixed by `options` or free ones chosen once per run (in the environment the workers inherit). */
export declare function simulatorConfig(options?: SimulatorConfigOptions): SimulatorConfig;
export declare function freePorts(count: number): number[];
export declare function startOptionsFromEnv(): StartOptions;
export declare const DEFAULT_ORGANIZATION_ID: string;
export declare const DEFAULT_AUTH_PROXY_CONFIG_ID: string;
export declare const PORT_ENV: "WALLET_SIMULATOR_PORT";
export declare const PROXY_PORT_ENV: "WALLET_SIMULATOR_PROXY_PORT";
export declare const APP_PORT_ENV: "WALLET_SIMULATOR_APP_PORT";

/** The `sim` fixture: the run's simulator, reset before the test. */
export interface SimFixture {
  ready: ReadyLine;
  url: string;
  proxyUrl: string;
  credentials: Credentials;
  control: ControlClient;
  reset(): Promise<void>;
  /** Every OTP "sent" (to `contact`): otpId, contact, code, ... */
  outbox(contact?: string): Promise<Json[]>;
  /** The code of the first OTP to `contact` beyond `after` (default 0), waiting 10 s by default (long poll). */
  waitForOtp(contact: string, options?: WaitForOtpOptions): Promise<string>;
  approve(activityId: string, user: string): Promise<Json>;
  reject(activityId: string, user: string): Promise<Json>;
  journal(op?: string): Promise<JournalEntry[]>;
  advanceClock(seconds: number): Promise<number>;
}

export interface SimulatorFixtures {
  /** The simulator, reset before the test (to the scenarios it was started with). */
  sim: SimFixture;
  /** Chrome's virtual authenticator on the test's page (added when a test asks for it, removed after). */
  authenticator: VirtualAuthenticator;
  /** `otp(contact, options?)`: the code sent to `contact`, as sim.waitForOtp. */
  otp: (contact: string, options?: WaitForOtpOptions) => Promise<string>;
}

export interface SimulatorWorkerFixtures {
  /** The worker's connection to the simulator the global setup started. */
  simulator: Simulator;
}

/** @playwright/test's `test` with the simulator's fixtures. */
export declare const test: PlaywrightTest.TestType<
  PlaywrightTest.PlaywrightTestArgs & PlaywrightTest.PlaywrightTestOptions & SimulatorFixtures,
  PlaywrightTest.PlaywrightWorkerArgs & PlaywrightTest.PlaywrightWorkerOptions & SimulatorWorkerFixtures
>;
/** @playwright/test's `expect`. */
export declare const expect: PlaywrightTest.Expect;
