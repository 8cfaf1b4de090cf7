// Types for wallet-simulator-testing (index.js).

export interface ReadyLine {
  url: string;
  proxyUrl: string;
  organizationId: string;
  userId: string;
  apiPublicKey: string;
  apiPrivateKey: string;
  seed: number;
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
  journal(op?: string): Promise<Json[]>;
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
}

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
