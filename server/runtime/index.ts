/**
 * The runtime, assembled: sandbox pool, package cache, invoker, durable queue, timers, the HTTP
 * trigger routes, the source lifecycle and the workflow step runner. `app.ts` creates one with
 * `createRuntime`, registers `httpRoutes` (outside /v1), calls `start()` once listening and
 * `close()` at shutdown.
 */
import { randomUUID } from "node:crypto";
import path from "node:path";
import type { FastifyInstance } from "fastify";
import type { ResponseRelay } from "../cluster/response-relay.js";
import type { Config } from "../config.js";
import { errorEvent } from "../delivery/error-event.js";
import { Quotas, utcDay } from "../quotas/quotas.js";
import type { ComponentDescriber, CredentialOpener, EnvOpener, EventStore, InvocationQueue, PropOptionsRunner, RunnableSource, SourceLifecycle } from "../services.js";
import type { Db } from "../store/db.js";
import { JobsRepo } from "../store/repos/jobs.js";
import { QuotasRepo } from "../store/repos/quotas.js";
import { RuntimeCatalogRepo } from "../store/repos/runtime-catalog.js";
import { SourceStateRepo } from "../store/repos/source-state.js";
import { TimersRepo } from "../store/repos/timers.js";
import { BundleCache } from "./bundles.js";
import { cachingCatalog, httpProp, type RuntimeCatalog } from "./catalog.js";
import { createDescriber } from "./describe.js";
import { Invoker } from "./invoke.js";
import { DELAYED_PREFIX, handleDelayedJobs } from "./delayed-emits.js";
import type { PackageCache } from "./npm/cache.js";
import { OneShotRunner, packageCacheFor } from "./one-shot.js";
import { registerDataDir } from "./stacks.js";
import { createPropOptionsRunner } from "./prop-options.js";
import { RuntimeLifecycle } from "./lifecycle.js";
import type { BatchHandler, JobHandler } from "./queue-jobs.js";
import { DurableQueue } from "./queue.js";
import { resolveIsolation, type Isolation } from "./sandbox/isolation.js";
import { networkPolicyFor } from "./sandbox/policy.js";
import { SandboxPool } from "./sandbox/pool.js";
import { removeStaleTmpDirs, type CallServer } from "./sandbox/process.js";
import { handleSourceJobs } from "./source-jobs.js";
import type { FastPath } from "../http/app.js";
import { endpointFastPath } from "./triggers/http-fast.js";
import { endpointUrlFor, httpTriggerRoutes, Responders, type HttpTarget, type HttpTargetResolver } from "./triggers/http.js";
import { TargetCache } from "./triggers/target-cache.js";
import { WriteGroup } from "../store/write-group.js";
import { runnableHttpEvent } from "./http-body.js";
import { TimerScheduler } from "./triggers/timer.js";
import { createWorkflowStepRunner, type RunWorkflowSteps } from "./workflow-steps.js";
import { createActionRunner, type RunAction } from "./actions.js";

export interface RuntimeDeps {
  config: Config;
  db: Db;
  events: EventStore;
  /** Base of endpoint URLs; a function because the port is known only once listening. */
  publicUrl: () => string;
  /** Defaults to reading the sources and components tables. */
  catalog?: RuntimeCatalog;
  log?: (msg: string, err?: unknown) => void;
  /** Timer poll period (tests shorten it). */
  timerPollMs?: number;
  /** The database's write transactions (store/write-group.ts); default: ungrouped ones of its own. */
  writes?: WriteGroup;
  /** SQLite means this server is alone on its database, so stale leases can be freed at start. */
  dialect?: "sqlite" | "postgres";
  /** Carries custom HTTP responses between instances sharing a PostgreSQL database. */
  responseRelay?: ResponseRelay;
  /** This instance's lease owner id (server/cluster/presence.ts watches it on PostgreSQL). */
  instanceId?: string;
  /** The isolation mode, already resolved (app.ts probes it while the database opens); default: probed here. */
  isolation?: Isolation;
  /** Opens the connected accounts sources reference (accounts/credentials.ts); absent: props run as stored. */
  credentials?: CredentialOpener;
  /** Owners' environment variables, `process.env` of their code (env/run-envs.ts); absent: none. */
  env?: EnvOpener;
  /** Who answers code's data store calls, as the worker's owner's (data-stores/code-calls.ts); absent: none. */
  dataStores?: (owner: string) => CallServer;
  /** Forgets the data store call keys of source runs that are stored. */
  forgetDataStoreCalls?: (jobIds: string[]) => void;
}

export interface Runtime {
  describer: ComponentDescriber;
  /** The npm package cache the sandbox loads packages from (also holds the vendor's component packages). */
  packages: PackageCache;
  /** A prop's choices from its `options()` (POST /components/{id}/props/{prop}/options). */
  propOptions: PropOptionsRunner;
  lifecycle: SourceLifecycle;
  /** A source was deleted: its endpoint must answer 404 at once (endpoint targets are cached). */
  forgetSource(sourceId: string): void;
  /** Sandbox processes alive or starting (`/metrics`). */
  sandboxProcesses(): number;
  /** An admin disabled, changed or deleted a user (here or on another instance): forget what is remembered of them. */
  userChanged(userId: string): void;
  /** HTTP requests waiting for a run's answer (custom responses), relayed across instances. */
  responders: Responders;
  queue: InvocationQueue & {
    registerHandler(prefix: string, handler: JobHandler): void;
    registerBatchHandler(prefix: string, handler: BatchHandler, maxBatch?: number): void;
  };
  quotas: Quotas;
  runWorkflowSteps: RunWorkflowSteps;
  /** One action run (POST /actions/run), in the pool, as an invocation of its owner. */
  runAction: RunAction;
  /** `ALL /e/:id[/*]`: register at the root (no prefix, no auth). */
  httpRoutes: (app: FastifyInstance) => Promise<void>;
  /**
   * The same endpoints' ingest case answered in front of Fastify (triggers/http-fast.ts), for
   * `setFastPath`; undefined with per-endpoint rate limits (the route applies them).
   */
  httpFastPath: FastPath | undefined;
  /**
   * Lets another concern (workflows, `p_`) receive HTTP requests at /e/:id. Its targets are
   * remembered as sources' are (triggers/target-cache.ts), so that their ingest case is answered
   * in front of Fastify too: the concern says when one changed (`forgetHttpTarget`).
   */
  registerHttpTarget(prefix: string, resolver: HttpTargetResolver): void;
  /** A target registered with registerHttpTarget changed or is gone: its next request reads it again. */
  forgetHttpTarget(id: string): void;
  endpointUrl(targetId: string): string;
  /** The sandbox's isolation mode, and why (sandbox/isolation.ts). */
  isolation: Isolation;
  /** Starts the queue runner and the timers (call once the server listens). */
  start(): Promise<void>;
  /** Stops timers and the queue (waiting for running jobs), then the sandbox processes. */
  close(): Promise<void>;
}

export function createRuntime(deps: RuntimeDeps): Runtime {
  const { config, db } = deps;
  const log = deps.log ?? ((msg: string, err?: unknown) => console.error(msg, err ?? ""));
  const catalog = cachingCatalog(deps.catalog ?? new RuntimeCatalogRepo(db));
  const packages = packageCacheFor(config);
  // Stacks and messages shown to users cut this data dir's paths (its npm cache, workers' temp dirs) out.
  const forgetDataDir = registerDataDir(config.dataDir);
  // Probed once (bwrap); a configured `namespaces` that cannot work stops the start here.
  const isolation = deps.isolation ?? resolveIsolation(config.sandbox.isolation);
  const bundles = new BundleCache(packages);
  // Describing and prop options run outside the pool, in processes of their own, sharing one set of slots.
  const oneShot = new OneShotRunner(config, packages);
  const pool = new SandboxPool({
    maxProcesses: config.sandbox.maxProcesses,
    memoryMb: config.sandbox.memoryMb,
    npmDir: packages.dir,
    tmpRoot: path.join(config.dataDir, "sandbox"),
    network: networkPolicyFor(config),
    isolation: isolation.mode,
    timeoutMs: config.sandbox.invocationTimeoutMs,
    ...(deps.dataStores ? { calls: deps.dataStores } : {}),
  });
  // Jobs, completions, quota counts and `this.db` writes share the turn's commit with appends.
  const writes = deps.writes ?? new WriteGroup(db, false);
  // Remembered between batches where every change goes through this process (SQLite).
  const state = new SourceStateRepo(db, deps.dialect === "sqlite");
  const jobs = new JobsRepo(db, writes);
  const quotasRepo = new QuotasRepo(db, writes);
  const quotas = new Quotas(quotasRepo, config.quotas);
  const endpointUrl = (id: string) => endpointUrlFor(deps.publicUrl(), id);
  const timeoutMs = config.sandbox.invocationTimeoutMs;
  const invoker = new Invoker({ pool, bundles, events: deps.events, state, quotas, timeoutMs, endpointUrl, ...(deps.credentials ? { credentials: deps.credentials } : {}), ...(deps.env ? { env: deps.env } : {}), ...(deps.forgetDataStoreCalls ? { forgetCalls: deps.forgetDataStoreCalls } : {}) });
  const queue = new DurableQueue(jobs, {
    // Targets held at once. More than the sandbox processes: a target waiting for a process keeps
    // its lease and its place (the pool serves waiters in order) instead of being looked for
    // again and again; what runs at once is still bounded by the pool.
    concurrency: Math.max(32, config.sandbox.maxProcesses * 4),
    // Renewed every third of it while a job runs; what a crashed instance held frees up after it.
    leaseMs: 30_000,
    releaseLeasesAtStart: deps.dialect === "sqlite",
    sharedDatabase: deps.dialect === "postgres",
    instanceId: deps.instanceId,
    log,
  });
  const timers = new TimerScheduler(new TimersRepo(db), { onFired: () => queue.kick(), log, pollMs: deps.timerPollMs });
  const responders = new Responders(deps.responseRelay);
  deps.responseRelay?.onReceive((key, response) => responders.deliver(key, response));
  // The source a batch runs, remembered for a moment where that is exact: on SQLite every change
  // goes through this process, which forgets the source first (as it does its endpoint target
  // below). With several instances (PostgreSQL) a source deactivated on another one must not run
  // here a moment later: each batch reads it. Saves a read before every batch of a steady stream.
  const runSources = deps.dialect === "sqlite" ? new TargetCache<RunnableSource | undefined>() : undefined;
  const runCatalog: RuntimeCatalog = runSources
    ? { source: (id) => runSources.get(id, (i) => catalog.source(i)), component: (id) => catalog.component(id) }
    : catalog;
  // Early: the invoker commits a job's results after its insert (QueuedJob.stored).
  queue.registerBatchHandler("dc_", (jobs) => handleSourceJobs(jobs, { catalog: runCatalog, invoker, responders }), undefined, { early: true });
  // Emits held until their delivery_ts (made by the invoker with its runs' completions).
  queue.registerBatchHandler(DELAYED_PREFIX, (jobs) => handleDelayedJobs(jobs, { catalog, events: deps.events }));

  const resolvers = new Map<string, HttpTargetResolver>();
  // Every endpoint target remembered, by its id's prefix (`dc_` sources, `p_` workflows).
  const targets = new Map<string, TargetCache<HttpTarget | undefined>>();
  const targetCache = (id: string) => targets.get(id.slice(0, id.indexOf("_") + 1));
  const remember = (prefix: string, resolver: HttpTargetResolver) => {
    const cache = new TargetCache<HttpTarget | undefined>();
    targets.set(prefix, cache);
    resolvers.set(prefix, (id) => cache.get(id, resolver));
  };
  const forgetSource = (id: string) => {
    targetCache(id)?.forget(id);
    runSources?.forget(id);
  };
  remember("dc_", async (id) => {
    const source = await catalog.source(id);
    if (!source) return undefined;
    const component = await catalog.component(source.componentId);
    const http = component && httpProp(component);
    if (!http) return undefined;
    return {
      ownerId: source.userId,
      active: source.active,
      customResponse: http.customResponse === true,
      ownerDisabled: source.ownerDisabled === true,
    };
  });

  return {
    isolation,
    describer: createDescriber(config, { oneShot }),
    packages,
    propOptions: createPropOptionsRunner(config, oneShot, quotas),
    lifecycle: new RuntimeLifecycle({ catalog, invoker, timers, state, jobs, onChanged: forgetSource }),
    forgetSource,
    sandboxProcesses: () => pool.size,
    userChanged: (userId: string) => {
      for (const cache of targets.values()) cache.clear();
      runSources?.clear();
      quotas.forgetUser(userId);
    },
    queue,
    quotas,
    responders,
    runWorkflowSteps: createWorkflowStepRunner({
      pool,
      bundles,
      quotas,
      timeoutMs,
      component: (id) => catalog.component(id),
      packagesFrom: (url) => packages.vendorInstallDir(url),
      ...(deps.credentials ? { credentials: deps.credentials } : {}),
      ...(deps.env ? { env: deps.env } : {}),
    }),
    runAction: createActionRunner({
      pool,
      bundles,
      quotas,
      timeoutMs,
      packagesFrom: (url) => packages.vendorInstallDir(url),
      ...(deps.env ? { env: deps.env } : {}),
    }),
    httpRoutes: httpTriggerRoutes({
      resolvers,
      enqueue: (j) => queue.enqueueWithIds(j),
      responders,
      responseTimeoutMs: timeoutMs + 30_000,
      bodyLimit: config.bodyLimitBytes,
      overQuota: async (targetId, ownerId, jobEvent) => {
        const check = await quotas.admits(ownerId);
        if (check.ok) return undefined;
        const now = new Date();
        // Recorded as the run would have seen it, its body parsed.
        const event = runnableHttpEvent(jobEvent);
        // Each kind of target records its refusals in the shape of its own $errors channel.
        const recorded = targetId.startsWith("p_")
          ? errorEvent({
              listenerId: targetId,
              ownerId,
              originalEvent: event,
              contextId: randomUUID(),
              sourceType: "HTTP",
              code: "QUOTA_EXCEEDED",
              message: check.message,
              cellId: "",
              stack: "",
              now,
            })
          : {
              error: { code: "QUOTA_EXCEEDED", name: "QUOTA_EXCEEDED", message: check.message, stack: "", ts: now.toISOString() },
              original_event: event,
              original_context: { source_id: targetId, trigger: "http", action: "run" },
            };
        await deps.events.append([{ emitterId: targetId, ownerId, channel: "$errors", event: recorded }]);
        return check.message;
      },
    }),
    httpFastPath:
      config.endpointRateLimit > 0
        ? undefined
        : endpointFastPath({
            target: (id) => targetCache(id)?.peek(id),
            admits: (ownerId) => quotas.admitsNow(ownerId),
            enqueue: (j) => queue.enqueueWithIds(j),
            bodyLimit: config.bodyLimitBytes,
            log,
          }),
    registerHttpTarget: remember,
    forgetHttpTarget: (id) => targetCache(id)?.forget(id),
    endpointUrl,
    async start() {
      // Yesterday's counters are shown nowhere; older ones are only clutter.
      await quotasRepo.pruneBefore(utcDay(Date.now() - 2 * 86_400_000));
      removeStaleTmpDirs(path.join(config.dataDir, "sandbox"));
      await queue.start();
      timers.start();
    },
    async close() {
      await timers.stop();
      await queue.stop();
      await pool.close();
      forgetDataDir();
    },
  };
}
