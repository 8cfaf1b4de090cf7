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
  /** Default 20. */
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
