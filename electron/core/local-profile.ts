/**
 * The "Local" profile's server: generated key (kept in the vault), own data dir under the user's
 * data dir, started on demand and kept running while the host lives. On the first successful
 * start it adds the example sources.
 */
import crypto from "node:crypto";
import path from "node:path";
import type { ProfileStatus } from "../../shared/bridge.js";
import { createClient } from "../../shared/client/index.js";
import { createExampleSources } from "./examples.js";
import { LocalServerError, startLocalServer, type LocalServer } from "./local-server.js";
import { LOCAL_PROFILE_ID, type Profiles } from "./profiles.js";

export interface LocalProfileOptions {
  appRoot: string;
  userDataDir: string;
  profiles: Profiles;
  /** Extra environment for the server. */
  serverEnv?: Record<string, string>;
  startTimeoutMs?: number;
  /** Start the server in its own process group (the CLI: see LocalServerOptions.detached). */
  detached?: boolean;
  /** Create example sources on the first launch (default true). */
  examples?: boolean;
  log: (message: string) => void;
  /** Called whenever status changes. */
  onChange: () => void;
}

export class LocalProfileRunner {
  status: ProfileStatus = "idle";
  statusMessage: string | undefined;
  private server: LocalServer | undefined;
  private starting: Promise<string> | undefined;
  private stopped = false;

  constructor(private readonly opts: LocalProfileOptions) {}

  get dataDir(): string {
    return path.join(this.opts.userDataDir, "local-server");
  }

  /** The key of the local server, generated on first use. */
  apiKey(): string {
    let key = this.opts.profiles.key(LOCAL_PROFILE_ID);
    if (!key) {
      key = `hwl_${crypto.randomBytes(24).toString("base64url")}`;
      this.opts.profiles.setKey(LOCAL_PROFILE_ID, key);
    }
    return key;
  }

  /** Starts the server unless running or starting; resolves to its `/v1` base URL. */
  ensureStarted(): Promise<string> {
    if (this.server) return Promise.resolve(this.server.baseUrl);
    this.starting ??= this.start().finally(() => {
      this.starting = undefined;
    });
    return this.starting;
  }

  private async start(): Promise<string> {
    this.setStatus("starting");
    const settings = this.opts.profiles.readSettings();
    try {
      const server = await startLocalServer({
        appRoot: this.opts.appRoot,
        dataDir: this.dataDir,
        apiKey: this.apiKey(),
        preferredPort: settings.localServerPort,
        startTimeoutMs: this.opts.startTimeoutMs,
        env: this.opts.serverEnv,
        detached: this.opts.detached,
        onLog: (line) => this.opts.log(`[local server] ${line}`),
      });
      if (this.stopped) {
        await server.stop();
        throw new LocalServerError("the app is shutting down");
      }
      this.server = server;
      server.onUnexpectedExit((reason) => {
        this.server = undefined;
        this.setStatus("failed", `${reason}. Select the Local connection again to restart it.`);
      });
      this.opts.profiles.update((s) => {
        s.localServerPort = server.port;
      });
      this.opts.profiles.setLocalBaseUrl(server.baseUrl);
      await this.maybeCreateExamples(server.baseUrl);
      this.setStatus("ready");
      return server.baseUrl;
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      this.setStatus("failed", `The local server could not start: ${message}`);
      throw err;
    }
  }

  private async maybeCreateExamples(baseUrl: string) {
    if (this.opts.examples === false || this.opts.profiles.readSettings().localExamplesCreated) return;
    try {
      const client = createClient({ baseUrl, apiKey: this.apiKey() });
      const { created, skipped } = await createExampleSources(client, this.opts.log);
      if (created > 0 || skipped) {
        this.opts.profiles.update((s) => {
          s.localExamplesCreated = true;
        });
      }
      this.opts.log(`local server: ${skipped ? "sources exist, no examples added" : `${created} example source(s) created`}`);
    } catch (err) {
      // Examples are a courtesy; the app works without them. Tried again next launch.
      this.opts.log(`local server: example sources not created: ${err instanceof Error ? err.message : String(err)}`);
    }
  }

  private setStatus(status: ProfileStatus, message?: string) {
    this.status = status;
    this.statusMessage = message;
    this.opts.onChange();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.starting?.catch(() => undefined);
    await this.server?.stop();
    this.server = undefined;
  }
}
