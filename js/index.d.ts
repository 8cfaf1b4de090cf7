// Types for wallet-simulator-testing (index.js).

export interface ReadyLine {
  url: string;
  proxyUrl: string;
  organizationId: string;
  userId: string;
  apiPublicKey: string;
  apiPrivateKey: string;
  seed: number;
  /** The simulator's export/import bundle signer (uncompressed P-256 hex): @turnkey/crypto's dangerouslyOverrideSignerPublicKey. */
  signerPublicKey: string;
  /** The inspector page, or null when it is not served (--no-inspector, --no-control). */
  inspectorUrl: string | null;
  /** The auth proxy configuration of organizationId (serve --auth-proxy, the web_app scenario); null when off. */
  authProxyConfigId?: string | null;
  /** The simulator's export frame page: react-wallet-kit's exportIframeUrl, sdk-browser's iframeClient iframeUrl. */
  exportIframeUrl?: string;
  /** The import frame page: react-wallet-kit's importIframeUrl. */
  importIframeUrl?: string;
  /** The auth (credential injection) frame page: sdk-browser's iframeClient iframeUrl for e-mail auth and recovery. */
  authIframeUrl?: string;
  /** The control API's token when serve generated it (--host beyond loopback without --control-token); else null. */
  controlToken?: string | null;
  /** The data directory the state is kept in (serve --data-dir), absolute; null when the state is in memory only. */
  dataDir?: string | null;
}

export interface Credentials {
  organizationId: string;
  userId: string;
  apiPublicKey: string;
  apiPrivateKey: string;
}

export interface StartOptions {
  /** The command that runs the simulator; default $WALLET_SIMULATOR_COMMAND, else "wallet-simulator". */
  command?: string | string[];
  /** Shipped scenario names or files (--scenario, repeated). */
  scenarios?: string[];
  seed?: number;
  /** The token the control API then requires (--control-token); the returned control client sends it. */
  controlToken?: string;
  /** Keep the state in this directory across restarts and crashes (--data-dir). */
  dataDir?: string;
  port?: number;
  proxyPort?: number;
  /** More `serve` switches, e.g. ["--log-format", "json"]. */
  args?: string[];
  env?: Record<string, string>;
  cwd?: string;
  timeoutMs?: number;
  stderr?: "pipe" | "inherit";
  onLog?: (chunk: string) => void;
}

export type Json = Record<string, any>;

export declare class ControlError extends Error {
  status: number;
  body: Json;
}

export declare class ControlClient {
  /** `token` defaults to $WALLET_SIMULATOR_CONTROL_TOKEN; sent as `Authorization: Bearer <token>`. */
  constructor(url: string, options?: { token?: string });
  url: string;
  call(method: string, path: string, body?: unknown, query?: Record<string, string>): Promise<any>;
  reset(): Promise<void>;
  loadScenarios(scenarios: string[], options?: { replace?: boolean }): Promise<Json[]>;
  snapshot(): Promise<string>;
  restore(snapshotId: string): Promise<void>;
  state(): Promise<Json>;
  importState(state: Json): Promise<void>;
  journal(op?: string): Promise<JournalEntry[]>;
  outbox(contact?: string): Promise<Json[]>;
  explain(activityId: string): Promise<Json>;
  coverage(): Promise<Json>;
  keys(): Promise<Record<string, string>>;
  advanceClock(seconds: number): Promise<number>;
  approve(activityId: string, user: string): Promise<Json>;
  reject(activityId: string, user: string): Promise<Json>;
  configureAuthProxy(organizationId: string, settings?: Json): Promise<Json>;
  oauthAuthorize(subject: string, options?: Json): Promise<string>;
  oauthIdToken(subject: string, audience: string, options?: Json): Promise<string>;
  webhookDeliveries(): Promise<Json[]>;
  fireWebhook(options?: { activityId?: string | null; url?: string | null; overrides?: Json | null }): Promise<Json[]>;
  resendWebhook(eventId: string): Promise<Json>;
  webhookChaos(chaos: { drop?: boolean; duplicate?: boolean; delayMs?: number; reorder?: boolean }): Promise<Json>;
  drainWebhooks(timeout?: number): Promise<number>;
  /** Make `url` the organization's webhook receiver (null removes it); default: the ready line's organization. */
  setWebhookReceiver(url: string | null, organizationId?: string): Promise<{ organizationId: string; url: string | null }>;
  /** Start a transport fault on the requests `spec.match` selects; resolves to it, named. */
  addFault(kind: FaultKind, spec?: FaultSpec): Promise<Fault>;
  /** The active faults with their counts and the requests they hit. */
  faults(): Promise<Fault[]>;
  removeFault(name: string): Promise<void>;
  clearFaults(): Promise<void>;
  /** Run `fn` with the fault active; it is removed afterwards, whatever `fn` does. */
  withFault<T>(kind: FaultKind, spec: FaultSpec, fn: (fault: Fault) => Promise<T> | T): Promise<T>;
  /** The code of the first OTP sent to `contact` beyond the `after` already seen: a long poll of the
   * outbox (GET /outbox?wait=), so one request answers when the code arrives; intervalMs only paces
   * a server without ?wait=. */
  waitForOtp(contact: string, options?: { timeoutMs?: number; intervalMs?: number; after?: number }): Promise<string>;
  /** Journal entries of `op` whose parameters (activities) or body (queries) contain `parameters`. */
  calls(op: string, parameters?: Json): Promise<JournalEntry[]>;
  /** Rejects with an AssertionError naming the latest calls of `op` unless it was called as asked. */
  assertCalled(op: string, parameters?: Json, options?: { times?: number }): Promise<JournalEntry[]>;
  assertNotCalled(op: string, parameters?: Json): Promise<void>;
}

export type FaultKind = "latency" | "unavailable" | "lostAnswer" | "reset" | "timeout" | "slow";

/** A fault as schemas/control/faults_add.json describes it (the scenario key `faults:` takes the same). */
export interface FaultSpec {
  name?: string;
  match?: {
    interface?: "api" | "authProxy";
    operation?: string | string[];
    type?: string | string[];
    organization?: string;
    parameters?: Json;
    occurrence?: number;
  };
  probability?: number;
  times?: number;
  ms?: number;
  distribution?: "fixed" | "uniform" | "lognormal";
  minMs?: number;
  maxMs?: number;
  medianMs?: number;
  sigma?: number;
  when?: "before" | "after";
  code?: 13 | 14;
  message?: string;
  seconds?: number;
  pieces?: number;
}

export interface Fault extends FaultSpec {
  name: string;
  kind: FaultKind;
  /** In the listing: requests the match selected, requests hit, and the newest hits. */
  matched?: number;
  hits?: number;
  requests?: Json[];
}

export interface JournalEntry {
  op: string;
  kind: string;
  status: number;
  request: Json;
  [field: string]: any;
}

export declare class JournalAssertionError extends Error {}

export interface WebhookRequest {
  method: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  /** The exact bytes received: what the signature covers. */
  rawBody: Buffer;
  json: any;
}

export interface WebhookReceiver {
  url: string;
  requests: WebhookRequest[];
  waitFor(count?: number, options?: { timeoutMs?: number }): Promise<WebhookRequest[]>;
  verify(request: WebhookRequest): boolean;
  close(): Promise<void>;
}

export interface Jwks {
  keys: Array<{ kid: string; kty: string; crv: string; x: string; [field: string]: string }>;
}

export declare const WEBHOOK_JWKS: Jwks;
/** Check a delivery's Ed25519 signature over the raw body, with the published keys (default: the simulator's). */
export declare function verifyWebhook(
  headers: Record<string, string | string[] | undefined>,
  rawBody: Buffer | string,
  jwks?: Jwks,
): boolean;
/** Listen on 127.0.0.1 and register as the organization's webhook receiver. */
export declare function startWebhookReceiver(
  simulator?: Simulator | ControlClient,
  options?: { organizationId?: string; path?: string; status?: number },
): Promise<WebhookReceiver>;

export interface Simulator {
  ready: ReadyLine;
  url: string;
  proxyUrl: string;
  seed: number;
  credentials: Credentials;
  control: ControlClient;
  reset(): Promise<void>;
  pid?: number;
  /** Ctrl-C the simulator (SIGKILL after timeoutMs); resolves with its exit status. */
  stop(timeoutMs?: number): Promise<number | null | undefined>;
}

export declare const READY_ENV: "WALLET_SIMULATOR_READY";
export declare const COMMAND_ENV: "WALLET_SIMULATOR_COMMAND";
export declare function startSimulator(options?: StartOptions): Promise<Simulator>;
export declare function connect(ready?: string | ReadyLine): Simulator;
export declare function createGlobalSetup(
  options?: StartOptions,
): (context?: { provide?: (key: string, value: unknown) => void }) => Promise<() => Promise<void>>;
export declare function globalTeardown(): Promise<void>;
export declare function resetBeforeEach(hook?: (fn: () => unknown) => void, simulator?: Simulator): void;
