/**
 * The host: everything behind `window.headwater`, in plain Node. Electron main and the web host
 * are thin shells that pass `call(method, args)` through and forward the pushed events.
 *
 *   call ─► validate (bridgeArgs) ─► profiles / keys / streams here, API methods in api-proxy
 *        ─► {ok, value} | {ok: false, error}       (never throws, never leaks a key)
 */
import {
  BRIDGE_METHODS,
  bridgeArgs,
  type BridgeMethod,
  type BridgeResult,
  type HostInfo,
  type ThemePreference,
  type Profile,
  type RemoteProfileInput,
  type RunBatch,
  type StreamBatch,
  type StreamChannel,
  type StreamStateUpdate,
  type TestRequestInput,
} from "../../shared/bridge.js";
import { createClient, type Client } from "../../shared/client/index.js";
import type { BackoffOptions } from "../../shared/sse/index.js";
import { testAgentConnection } from "./agent-connection.js";
import { API_METHODS, apiHandlers, withoutKey, type ApiMethod } from "./api-proxy.js";
import { HostError, argumentError, toBridgeError } from "./errors.js";
import { keyStatus, type KeyVault } from "./key-vault.js";
import { LocalProfileRunner } from "./local-profile.js";
import { LOCAL_PROFILE_ID, Profiles, type EnvProfile } from "./profiles.js";
import type { SettingsStore, StoredProfile } from "./settings.js";
import { StreamManager } from "./streams/manager.js";
import { TestRequests } from "./test-requests.js";

export interface HostOptions {
  mode: HostInfo["mode"];
  version: string;
  /** The project root (server/main.ts, node_modules). */
  appRoot: string;
  /** Per-user data dir: the local server's data lives under it. */
  userDataDir: string;
  settings: SettingsStore;
  vault: KeyVault;
  /** HEADWATER_API_URL + HEADWATER_API_KEY: a remote profile for this launch, selected. */
  env?: EnvProfile;
  local?: { serverEnv?: Record<string, string>; startTimeoutMs?: number; examples?: boolean };
  streams?: { watchdogMs?: number; backoff?: BackoffOptions; pollIntervalMs?: number; batchIntervalMs?: number };
  fetch?: typeof globalThis.fetch;
  log?: (message: string) => void;
}

export interface HostListener {
  streamBatch?(batch: StreamBatch): void;
  runBatch?(batch: RunBatch): void;
  streamState?(update: StreamStateUpdate): void;
  profilesChanged?(profiles: Profile[]): void;
}

const apiMethodSet = new Set<string>(API_METHODS);

export class Host {
  readonly profiles: Profiles;
  private readonly local: LocalProfileRunner;
  private readonly streams: StreamManager;
  private readonly testRequests: TestRequests;
  private readonly listeners = new Set<HostListener>();
  private readonly clients = new Map<string, { fingerprint: string; client: Client }>();
  private readonly log: (message: string) => void;
  /** Remote profiles whose key the server refused (401), with the words to show. */
  private readonly refused = new Map<string, string>();
  /** Which profile each open watch streams from, to mark it refused on an `unauthorized` state. */
  private readonly watchProfiles = new Map<string, string>();

  constructor(private readonly opts: HostOptions) {
    this.log = opts.log ?? (() => undefined);
    this.profiles = new Profiles(opts.settings, opts.vault, opts.env);
    this.local = new LocalProfileRunner({
      appRoot: opts.appRoot,
      userDataDir: opts.userDataDir,
      profiles: this.profiles,
      serverEnv: opts.local?.serverEnv,
      startTimeoutMs: opts.local?.startTimeoutMs,
      examples: opts.local?.examples,
      log: this.log,
      onChange: () => this.emitProfiles(),
    });
    this.testRequests = new TestRequests(opts.settings, opts.fetch);
    this.streams = new StreamManager({
      ...opts.streams,
      log: this.log,
      onBatch: (b) => this.emit((l) => l.streamBatch?.(b)),
      onRunBatch: (b) => this.emit((l) => l.runBatch?.(b)),
      onState: (u) => {
        const profileId = this.watchProfiles.get(u.watchId);
        if (u.state === "unauthorized" || u.state === "closed") this.watchProfiles.delete(u.watchId);
        if (u.state === "unauthorized" && profileId) this.markRefused(profileId, u.message);
        this.emit((l) => l.streamState?.(u));
      },
    });
  }

  /** Starts the local server in the background when the local profile is the current one. */
  start(): void {
    if (this.profiles.currentId() === LOCAL_PROFILE_ID) this.startLocalInBackground();
  }

  subscribe(listener: HostListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Answers one bridge call. Never throws. */
  async call(method: string, rawArgs: unknown): Promise<BridgeResult<unknown>> {
    if (!(BRIDGE_METHODS as string[]).includes(method)) {
      return { ok: false, error: { status: 400, code: "unknown_method", message: `No such operation: ${method}` } };
    }
    const m = method as BridgeMethod;
    const parsed = bridgeArgs[m].safeParse(trimTrailingEmpty(rawArgs));
    if (!parsed.success) return { ok: false, error: argumentError(m, parsed.error) };
    let origin: string | undefined;
    // The profile the call goes to: a 401 marks this one refused even if the user switched meanwhile.
    const profileId = this.profiles.currentId();
    try {
      if (apiMethodSet.has(m)) {
        const { client } = await this.connection();
        origin = new URL(client.baseUrl).origin;
        const handler = apiHandlers[m as ApiMethod] as (c: Client, ...a: unknown[]) => Promise<unknown>;
        const value = await handler(client, ...(parsed.data as unknown[]));
        // The server took the key again (e.g. an admin restored it): no longer refused.
        if (profileId && this.refused.delete(profileId)) this.emitProfiles();
        return { ok: true, value };
      }
      return { ok: true, value: await this.hostMethod(m, parsed.data as unknown[]) };
    } catch (err) {
      const error = toBridgeError(err, { origin });
      // `no_key` is our own 401 (nothing stored): that is not the server refusing a key. Nor is a
      // 401 from `/mcp`: what answers there may be something else than the server of `/v1`.
      if (profileId && error.status === 401 && error.code !== "no_key" && m !== "testAgentConnection") {
        this.markRefused(profileId, error.message);
      }
      return { ok: false, error };
    }
  }

  /** Closes every live feed (the page that opened them reloaded or went away). */
  closeAllWatches(): void {
    this.streams.closeAll();
  }

  async stop(): Promise<void> {
    this.streams.closeAll();
    await this.local.stop();
  }

  // -- profiles, keys, streams -----------------------------------------------------------------

  private async hostMethod(m: BridgeMethod, args: unknown[]): Promise<unknown> {
    switch (m) {
      case "hostInfo":
        return {
          mode: this.opts.mode,
          version: this.opts.version,
          keyStorage: this.opts.vault.storage,
        } satisfies HostInfo;
      case "getTheme":
        return this.opts.settings.read().theme;
      case "setTheme": {
        const settings = this.opts.settings.read();
        settings.theme = args[0] as ThemePreference;
        this.opts.settings.write(settings);
        return settings.theme;
      }
      case "listProfiles":
        return this.profileViews();
      case "currentProfile": {
        const p = this.profiles.current();
        return p ? this.view(p) : null;
      }
      case "addRemoteProfile": {
        this.streams.closeAll();
        const p = this.profiles.addRemote(args[0] as RemoteProfileInput);
        this.emitProfiles();
        return this.view(p);
      }
      case "selectProfile": {
        const id = args[0] as string;
        if (id === LOCAL_PROFILE_ID && this.profiles.currentId() === id && this.local.status === "failed") {
          this.startLocalInBackground();
        }
        if (this.profiles.currentId() !== id) {
          this.profiles.get(id);
          this.streams.closeAll();
          this.profiles.select(id);
          if (id === LOCAL_PROFILE_ID) this.startLocalInBackground();
          this.emitProfiles();
        }
        return this.view(this.profiles.get(id));
      }
      case "removeProfile": {
        const id = args[0] as string;
        const wasCurrent = this.profiles.currentId() === id;
        this.profiles.remove(id);
        this.clients.delete(id);
        this.refused.delete(id);
        if (wasCurrent) {
          this.streams.closeAll();
          this.start();
        }
        this.emitProfiles();
        return undefined;
      }
      case "setProfileKey": {
        const [id, key] = args as [string, string];
        if (id === LOCAL_PROFILE_ID) {
          throw new HostError(400, "invalid_argument", "The local connection's key is managed by the app.");
        }
        this.profiles.setKey(id, key);
        this.clients.delete(id);
        this.refused.delete(id);
        this.emitProfiles();
        return this.view(this.profiles.get(id));
      }
      case "keyStatus": {
        const id = (args[0] as string | undefined) ?? this.profiles.currentId();
        if (!id) return keyStatus(undefined);
        this.profiles.get(id);
        return keyStatus(this.keyOf(id));
      }
      case "rotateApiKey": {
        const { client, profileId } = await this.connection();
        const user = await client.rotateApiKey();
        if (!user.api_key) throw new HostError(502, "unexpected_response", "The server did not return the new key.");
        this.profiles.setKey(profileId, user.api_key);
        this.clients.delete(profileId);
        this.refused.delete(profileId);
        this.emitProfiles();
        return { user: withoutKey(user), key: keyStatus(user.api_key) };
      }
      case "sendTestRequest": {
        const [emitterId, request] = args as [string, TestRequestInput];
        const { client, profileId } = await this.connection();
        return this.testRequests.send(client, profileId, emitterId, request);
      }
      case "listTestRequests": {
        const profileId = this.profiles.currentId();
        return profileId ? this.testRequests.list(profileId, args[0] as string) : [];
      }
      case "testAgentConnection": {
        const { client, profileId } = await this.connection();
        return testAgentConnection({
          baseUrl: client.baseUrl,
          apiKey: this.keyOf(profileId) ?? "",
          fetch: this.opts.fetch,
          clientVersion: this.opts.version,
        });
      }
      case "watch": {
        const [emitterId, channel] = args as [string, StreamChannel];
        const { client, profileId } = await this.connection();
        const watchId = this.streams.watch(emitterId, channel, {
          client,
          apiKey: () => this.keyOf(profileId) ?? "",
          fetch: this.opts.fetch,
        });
        this.watchProfiles.set(watchId, profileId);
        return watchId;
      }
      case "watchRuns": {
        const { client, profileId } = await this.connection();
        const watchId = this.streams.watchRuns(args[0] as string, {
          client,
          apiKey: () => this.keyOf(profileId) ?? "",
          fetch: this.opts.fetch,
        });
        this.watchProfiles.set(watchId, profileId);
        return watchId;
      }
      case "unwatch": {
        this.watchProfiles.delete(args[0] as string);
        if (!this.streams.unwatch(args[0] as string)) {
          throw new HostError(404, "not_found", "That live feed is not open.");
        }
        return undefined;
      }
      default:
        throw new HostError(400, "unknown_method", `No such operation: ${m}`);
    }
  }

  /** The current profile's client, waiting for the local server when it is starting. */
  private async connection(): Promise<{ client: Client; profileId: string }> {
    const profile = this.profiles.current();
    if (!profile) throw new HostError(409, "no_profile", "No connection is selected. Add one under Connections.");
    let baseUrl = profile.baseUrl;
    if (profile.kind === "local") {
      // A failed local server is restarted only when the user selects Local again, not by
      // every query that happens to run (which would spawn a server per retry).
      const unavailable = () =>
        new HostError(503, "local_server_unavailable", this.local.statusMessage ?? "The local server is not running.");
      if (this.local.status === "failed") throw unavailable();
      try {
        baseUrl = await this.local.ensureStarted();
      } catch {
        throw unavailable();
      }
    }
    const key = this.keyOf(profile.id);
    if (!key) {
      throw new HostError(401, "no_key", `No API key is stored for "${profile.name}". Enter it under Connections.`);
    }
    const fingerprint = `${baseUrl}\n${key}`;
    const cached = this.clients.get(profile.id);
    if (cached?.fingerprint === fingerprint) return { client: cached.client, profileId: profile.id };
    const client = createClient({ baseUrl, apiKey: key, fetch: this.opts.fetch });
    this.clients.set(profile.id, { fingerprint, client });
    return { client, profileId: profile.id };
  }

  private keyOf(id: string): string | undefined {
    return id === LOCAL_PROFILE_ID ? this.local.apiKey() : this.profiles.key(id);
  }

  private startLocalInBackground() {
    this.local.ensureStarted().catch((err: unknown) => this.log(`local server: ${err instanceof Error ? err.message : String(err)}`));
  }

  /** A remote profile's key was refused by its server: say so on the profile (sidebar, Connections). */
  private markRefused(profileId: string, reason?: string) {
    const p = this.profiles.list().find((x) => x.id === profileId);
    // Local's key is managed by the app (no way to replace it); its status is the server's.
    if (!p || p.kind !== "remote") return;
    const message = reason ?? `The server refused the API key of "${p.name}". Replace the key under Connections.`;
    if (this.refused.get(profileId) === message) return;
    this.refused.set(profileId, message);
    this.emitProfiles();
  }

  private view(p: StoredProfile): Profile {
    const isLocal = p.kind === "local";
    const refusedMessage = isLocal ? undefined : this.refused.get(p.id);
    const message = isLocal ? this.local.statusMessage : refusedMessage;
    return {
      id: p.id,
      name: p.name,
      kind: p.kind,
      baseUrl: isLocal && this.local.status !== "ready" ? "" : p.baseUrl,
      key: keyStatus(isLocal ? this.profiles.key(p.id) : this.keyOf(p.id)),
      status: isLocal ? this.local.status : refusedMessage !== undefined ? "refused" : "ready",
      ...(message ? { statusMessage: message } : {}),
      current: this.profiles.currentId() === p.id,
    };
  }

  private profileViews(): Profile[] {
    return this.profiles.list().map((p) => this.view(p));
  }

  private emitProfiles() {
    const views = this.profileViews();
    this.emit((l) => l.profilesChanged?.(views));
  }

  private emit(fn: (l: HostListener) => void) {
    for (const l of this.listeners) {
      try {
        fn(l);
      } catch (err) {
        this.log(`listener failed: ${String(err)}`);
      }
    }
  }
}

/** JSON (HTTP, IPC) turns trailing `undefined` arguments into null or drops them: both mean "not given". */
function trimTrailingEmpty(args: unknown): unknown {
  if (!Array.isArray(args)) return args;
  const out = [...args];
  while (out.length > 0 && (out[out.length - 1] === undefined || out[out.length - 1] === null)) out.pop();
  return out;
}
