/**
 * The composition root: where a newcomer starts. `createServer(config)` opens the database,
 * builds each concern's service from its repositories and the seams of server/services.ts,
 * registers one route plugin per concern, and listens. Nothing else wires concerns together.
 *
 *   config ─► store (db, migrations, repositories) ─► services ─► route plugins ─► listen
 *
 *   services:  events (store, bus, subscriptions, workflows)  ◄── runtime ($emit)
 *              runtime (sandbox, queue, timers, quotas)       ◄── sources (lifecycle hooks)
 *              users, components (describer = runtime sandbox), sources
 *
 * To add a concern: build its service under "services", register its routes under "routes",
 * and `closers.push` its stop function when it holds resources.
 *
 * Longer than the house's ~400 lines on purpose: the whole wiring in one place is what lets a
 * reader see every concern's seams at once; each concern's own logic lives in its folder.
 */
import { randomUUID } from "node:crypto";
import type { FastifyInstance } from "fastify";
import { seedBuiltinComponents } from "./components/builtin/seed.js";
import { fetchComponent } from "./components/fetch.js";
import { NpmComponents } from "./components/npm-registry.js";
import { RegistryLookup } from "./runtime/npm/registry.js";
import { ComponentService } from "./components/service.js";
import type { Config } from "./config.js";
import { createEventServices, type EventServices } from "./events/index.js";
import { closeGracefully, createHttpApp, setFastPath } from "./http/app.js";
import { registerAuth } from "./http/auth.js";
import { registerHandover } from "./http/handover.js";
import { registerRateLimits } from "./http/rate-limit.js";
import { componentRoutes } from "./http/routes/components.js";
import { eventRoutes } from "./http/routes/events.js";
import { inspectionRoutes } from "./http/routes/inspection.js";
import { healthRoutes } from "./http/routes/health.js";
import { metricsRoutes } from "./http/routes/metrics.js";
import { createMetricsRegistry } from "./metrics/registry.js";
import { openapiRoutes } from "./http/routes/openapi.js";
import { sourceRoutes } from "./http/routes/sources.js";
import { streamRoutes } from "./http/routes/streams.js";
import { mcpRoutes } from "./mcp/route.js";
import { subscriptionRoutes } from "./http/routes/subscriptions.js";
import { userRoutes } from "./http/routes/users.js";
import { workflowRoutes } from "./http/routes/workflows.js";
import { workflowHistoryRoutes } from "./http/routes/workflow-history.js";
import { WorkflowHistory } from "./workflows/versions/history.js";
import { testRunRoutes } from "./http/routes/test-runs.js";
import { TestRuns } from "./workflows/tests/index.js";
import { runRoutes, runStreamRoutes } from "./http/routes/runs.js";
import { compareRunRoutes } from "./http/routes/compare-runs.js";
import { schemaRoutes } from "./http/routes/schemas.js";
import { RunComparer } from "./workflows/compare/compare.js";
import { RunChanges } from "./workflows/runs/changes.js";
import { LATER_PREFIX, moveDueJobs } from "./workflows/dispatch.js";
import { runInOrder, WORKFLOW_BATCH } from "./workflows/run-in-order.js";
import { startFenceFor } from "./workflows/runs/start-fence.js";
import { runTargetsOf } from "./workflows/targets.js";
import { callerAnswers } from "./workflows/runs/respond.js";
import { RunService } from "./workflows/runs/service.js";
import { workflowTriggerRoutes } from "./http/routes/workflow-triggers.js";
import { ScheduleTicker } from "./workflows/schedules/ticker.js";
import { bearerOf } from "./workflows/schedules/triggers.js";
import { WorkflowTriggerService } from "./workflows/schedules/service.js";
import { WorkflowSchedulesRepo } from "./store/repos/workflow-schedules.js";
import { accountRoutes } from "./http/routes/accounts.js";
import { envRoutes } from "./http/routes/env.js";
import { dataStoreRoutes } from "./http/routes/data-stores.js";
import { createDataStores } from "./data-stores/index.js";
import { RunEnvs } from "./env/run-envs.js";
import { EnvService } from "./env/service.js";
import { REMEMBERED_AT_MOST_MS } from "./cluster/remembered.js";
import { EnvVarsRepo } from "./store/repos/env-vars.js";
import { actionRoutes } from "./http/routes/actions.js";
import { ActionService } from "./actions/service.js";
import { Credentials } from "./accounts/credentials.js";
import { AccountReferences } from "./accounts/references.js";
import { AccountService } from "./accounts/service.js";
import { adoptInlineCredentials, reportUnopenable } from "./accounts/adopt-inline.js";
import { loadKeyring } from "./secrets/key-source.js";
import { AccountsRepo } from "./store/repos/accounts.js";
import { createRuntime, type Runtime } from "./runtime/index.js";
import { resolveIsolationAsync } from "./runtime/sandbox/isolation.js";
import { networkPolicyFor } from "./runtime/sandbox/policy.js";
import { PgResponseRelay } from "./cluster/response-relay.js";
import { Presence } from "./cluster/presence.js";
import { UserChanges } from "./cluster/user-changes.js";
import { withStartupLock } from "./store/repos/cluster.js";
import { SourceService } from "./sources/service.js";
import { openDb, type OpenedDb } from "./store/db.js";
import { ComponentsRepo } from "./store/repos/components.js";
import { SourcesRepo } from "./store/repos/sources.js";
import { isUserDisabled, UsersRepo } from "./store/repos/users.js";
import { findWorkflow, getWorkflow } from "./store/repos/workflows.js";
import { UserService } from "./users/service.js";

export const API_VERSION = "1.0.0";

export interface Server {
  app: FastifyInstance;
  /** `http://host:port` where it listens. */
  url: string;
  /** Base of endpoint URLs handed out (HEADWATER_PUBLIC_URL, or `url`). */
  publicUrl: string;
  store: OpenedDb;
  services: {
    users: UserService;
    components: ComponentService;
    sources: SourceService;
    events: EventServices;
    /** The sandbox's run primitives, for benchmarks that compare them without HTTP. */
    runtime: Pick<Runtime, "runAction" | "runWorkflowSteps">;
    /** Who follows workflows' runs, and what they are told (tests feed the runs stream here). */
    runs: Pick<RunService, "changes">;
  };
  /** Stops accepting requests, lets in-flight ones finish, stops every service, closes the db. */
  close(): Promise<void>;
}

export async function createServer(config: Config): Promise<Server> {
  // Stopped in reverse order: HTTP first, then the runtime, events, and the database last.
  const closers: Array<() => Promise<void>> = [];
  const closeAll = async () => {
    for (const close of closers.reverse()) await close();
  };
  // The base of endpoint URLs is known once the server listens (port 0 in tests): read lazily.
  let publicUrl = config.publicUrl ?? "";
  const getPublicUrl = () => publicUrl;

  // Which isolation the sandbox gets: bwrap is probed by running a process, concurrently with
  // opening the database. A configured `namespaces` that cannot work stops the start (below).
  const isolation = resolveIsolationAsync(config.sandbox.isolation);
  isolation.catch(() => undefined); // awaited below; not unhandled if the start fails before

  try {
    // The key that seals credentials: refused before anything opens (PostgreSQL needs a shared one).
    const keyring = loadKeyring({
      ...config.secrets,
      dataDir: config.dataDir,
      databaseUrl: config.databaseUrl,
    });
    // -- storage: migrations run here; store/ is the only place with SQL ----------------------
    const store = await openDb({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
    closers.push(() => store.close());
    const repos = {
      users: new UsersRepo(store.db, store.dialect),
      components: new ComponentsRepo(store.db),
      sources: new SourcesRepo(store.db),
      accounts: new AccountsRepo(store.db),
      env: new EnvVarsRepo(store.db, store.dialect),
    };
    // Data stores: records read and written by the API and by code (sources' and steps' props).
    const dataStores = createDataStores(store.db, store.dialect, config.dataStoreMaxKeys);
    // Connected accounts: credentials sealed at rest, opened for runs only. Sources stored before
    // accounts existed have their inline credentials moved into accounts, once, before serving.
    const accounts = new AccountService(repos.accounts, keyring, (ids, db) =>
      repos.accounts.holderNames(ids, db),
    );
    const accountRefs = new AccountReferences(repos.accounts, accounts);
    const credentials = new Credentials(repos.accounts, keyring);

    // -- the HTTP app first: every service logs through it -------------------------------------
    const app = createHttpApp(config);
    const log = app.log;
    await withStartupLock(store.db, store.dialect, () => adoptInlineCredentials(store, accountRefs, log));
    await reportUnopenable(repos.accounts, keyring, log);
    await reportUnopenable(repos.env, keyring, log, { noun: "secret environment variable(s)", effect: "runs go without them" });
    // Users' environment variables as their runs read them: remembered per user, read again
    // after a change (announced to every instance, below) and, with several instances, at most
    // REMEMBERED_AT_MOST_MS after it was read.
    const runEnvs = new RunEnvs(repos.env, keyring, {
      maxAgeMs: store.pgPool ? REMEMBERED_AT_MOST_MS : undefined,
      log,
    });

    // -- services ------------------------------------------------------------------------------
    // Events: the event store ($emit), bus, subscriptions and delivery, workflows.
    const events = await createEventServices({ store, config, publicUrl: getPublicUrl, log });
    closers.push(() => events.close());

    // Several instances on one PostgreSQL: custom HTTP responses travel to the waiting instance.
    const responseRelay = store.pgPool ? await PgResponseRelay.start({ pool: store.pgPool, log }) : undefined;
    if (responseRelay) closers.push(() => responseRelay.close());
    // ... and a dead instance's leases are taken over as soon as its sessions are gone.
    const instanceId = randomUUID();
    const presence = store.pgPool
      ? await Presence.start({ pool: store.pgPool, db: store.db, instanceId, log })
      : undefined;
    if (presence) closers.push(() => presence.close());

    // Runtime: sandboxes, the durable invocation queue, timer and HTTP triggers, quotas.
    const runtime = createRuntime({
      config,
      db: store.db,
      writes: store.writes,
      dialect: store.dialect,
      responseRelay,
      instanceId,
      events: events.store,
      publicUrl: getPublicUrl,
      log: (msg, err) => log.error({ err }, msg),
      isolation: await isolation,
      credentials,
      env: runEnvs,
      dataStores: dataStores.calls,
      forgetDataStoreCalls: dataStores.forgetCalls,
    });
    closers.push(() => runtime.close());
    // Stored events are routed to their listeners through the runtime's queue: each listener's
    // job is inserted in the transaction that stores the event.
    events.routeTo(runtime.queue);
    // Workflows run through the runtime's queue and receive requests at their endpoint URL.
    // Each run is recorded (workflows/runs/); who follows a workflow's runs hears of each.
    const runChanges = new RunChanges(store.db, store.dialect === "postgres", (msg, err) =>
      log.error({ err }, msg),
    );
    closers.push(async () => runChanges.close());
    // Where a run's start meets a cancel (workflows/runs/start-fence.ts): the runner and the API share it.
    const runFence = startFenceFor(store.db, store.dialect);
    const runs = new RunService(store.db, runtime.queue, runChanges, runFence);
    const runDispatch = { writes: store.writes, wake: (targets: string[]) => runtime.queue.wake(targets) };
    runtime.queue.registerBatchHandler(
      "p_",
      runInOrder(
        events.workflowHandler(runtime.runWorkflowSteps, runtime.quotas, {
          changes: runChanges,
          answers: callerAnswers(runtime.responders),
          retention: config.runRetention,
          dispatch: runDispatch,
          fence: runFence,
          forgetCalls: dataStores.forgetCalls,
          log: (msg, err) => log.error({ err }, msg),
        }),
      ),
      WORKFLOW_BATCH,
    );
    // Runs that wait to go on (retries, delays) are moved to their run target when due.
    runtime.queue.registerBatchHandler(LATER_PREFIX, (jobs) =>
      moveDueJobs({ ...runDispatch, db: store.db }, jobs),
    );
    events.workflows.onChanged((id) => runtime.forgetHttpTarget(id));
    // Workflows' schedules: one loop per server, each tick claimed once across servers.
    const ticker = new ScheduleTicker(new WorkflowSchedulesRepo(store.db), {
      onFired: (ids) => runtime.queue.wake(ids),
      log: (msg, err) => log.error({ err }, msg),
    });
    closers.push(() => ticker.stop());
    events.workflows.onChanged(() => ticker.poke());
    // A workflow turned on again: its parked runs go on at once.
    events.workflows.onResumed((id) => runtime.queue.wake(runTargetsOf(id)));
    runtime.registerHttpTarget("p_", async (id) => {
      const wf = await findWorkflow(store.db, id);
      return (
        wf && {
          ownerId: wf.owner_id,
          active: Number(wf.active) === 1,
          customResponse: wf.http_response === "workflow",
          ownerDisabled: await isUserDisabled(store.db, wf.owner_id),
          workflow: { responseTimeoutMs: config.workflowResponseTimeoutMs },
          ...bearerOf(wf.triggers_json),
        }
      );
    });

    // Users: keys, the bootstrap admin, quota usage (counted by the runtime).
    const users = new UserService(repos.users, config, runtime.quotas);
    // Seeding under a lock: instances starting together on one PostgreSQL take turns.
    const bootstrapKey = config.bootstrapApiKey;
    if (bootstrapKey)
      await withStartupLock(store.db, store.dialect, () => users.ensureBootstrapAdmin(bootstrapKey));
    registerAuth(app, users);
    registerHandover(app);
    // Once, at start: which isolation component code runs under, and why; without namespaces,
    // users can reach each other's workers through the host (see server/runtime/README.md).
    log.info(`sandbox isolation: ${runtime.isolation.mode} (${runtime.isolation.reason})`);
    if (runtime.isolation.mode === "process" && (await repos.users.list({ limit: 2 })).rows.length > 1) {
      log.warn(
        "sandbox isolation: this server has several users, and their component code runs without OS namespaces (process mode): install bubblewrap on Linux",
      );
    }

    // Components are described in the runtime's sandbox; a component_url is fetched under the
    // sandbox's network policy. Built-ins are published at start.
    const components = new ComponentService(
      repos.components,
      runtime.describer,
      (url) => fetchComponent(url, networkPolicyFor(config)),
      runtime.propOptions,
      credentials,
    );
    const systemUserId = await withStartupLock(store.db, store.dialect, () =>
      seedBuiltinComponents(repos.users, components, runtime.describer),
    );
    // A key no registry component has is looked up in the vendor's npm packages (on by default).
    if (config.npm.components) {
      const npm = new NpmComponents({
        packages: runtime.packages,
        describer: runtime.describer,
        versions: config.npm.componentVersions,
        lookup: new RegistryLookup({ registry: config.npm.registry }),
        missTtlMs: config.npm.missTtlMs,
      });
      components.useNpmComponents(npm, systemUserId);
    }

    // An admin's change to a user (disabled, quotas, deleted) is forgotten at once by the
    // runtime of every instance: endpoints answer 403 / 404 from then on.
    const userChanges = new UserChanges(instanceId);
    userChanges.onChanged((userId) => runtime.userChanged(userId));
    // A change of a user's environment variables is announced the same way (env/service.ts).
    userChanges.onChanged((userId) => runEnvs.forget(userId));
    if (store.pgPool) {
      await userChanges.listen(store.pgPool, log);
      closers.push(() => userChanges.close());
    }
    users.useAdminDeps({ heirId: () => systemUserId, announce: (id) => userChanges.announce(id) });

    // Sources: the runtime's lifecycle runs their hooks; deleting one forgets its events.
    const sources = new SourceService({
      repo: repos.sources,
      components,
      lifecycle: runtime.lifecycle,
      publicUrl: getPublicUrl,
      accounts: accountRefs,
      log,
      ownsDataStore: dataStores.owns,
    });
    sources.onDeleted((source) => {
      runtime.forgetSource(source.id);
      return events.subscriptions.participantDeleted(source.id);
    });
    sources.onCreated((userId, id) => events.subscriptions.participantCreated(userId, id));

    // Actions: run by key in the runtime's pool; workflow steps may name one (their accounts
    // are recorded as the workflow's uses).
    const actions = new ActionService({
      components,
      run: runtime.runAction,
      options: runtime.propOptions,
      credentials,
    });
    events.workflows.useActions({ actions, accounts: accountRefs });
    // Code steps' props are read from their code in the sandbox, as a component's are.
    events.workflows.useDescriber(runtime.describer);

    // -- routes: one plugin per concern --------------------------------------------------------
    // Rate limits first: they attach to the routes declared after them.
    await registerRateLimits(app, config);
    await app.register(healthRoutes, { isolation: runtime.isolation.mode });
    const metrics = createMetricsRegistry({
      db: store.db,
      sandboxProcesses: () => runtime.sandboxProcesses(),
    });
    await app.register(metricsRoutes, { registry: metrics, token: config.metricsToken });
    await app.register(openapiRoutes, { prefix: "/v1", version: API_VERSION });
    await app.register(userRoutes, { prefix: "/v1", users });
    await app.register(componentRoutes, { prefix: "/v1", components });
    await app.register(sourceRoutes, { prefix: "/v1", sources });
    await app.register(eventRoutes, { prefix: "/v1", events });
    await app.register(inspectionRoutes, { prefix: "/v1", events });
    await app.register(subscriptionRoutes, { prefix: "/v1", subscriptions: events.subscriptions });
    await app.register(workflowRoutes, { prefix: "/v1", workflows: events.workflows });
    await app.register(workflowHistoryRoutes, { prefix: "/v1", history: new WorkflowHistory(store.db, events.workflows) });
    const tests = new TestRuns({
      db: store.db,
      workflows: events.workflows,
      runSteps: runtime.runWorkflowSteps,
      quotas: runtime.quotas,
      writes: store.writes,
      log: (msg, err) => log.error({ err }, msg),
    });
    await app.register(testRunRoutes, { prefix: "/v1", tests });
    await app.register(runRoutes, { prefix: "/v1", runs });
    await app.register(workflowTriggerRoutes, {
      prefix: "/v1",
      triggers: new WorkflowTriggerService(store.db, runtime.queue, runs),
    });
    await app.register(compareRunRoutes, { prefix: "/v1", comparer: new RunComparer(store.db, runs) });
    await app.register(schemaRoutes, { prefix: "/v1", publicUrl: getPublicUrl });
    await app.register(accountRoutes, { prefix: "/v1", accounts });
    const env = new EnvService(repos.env, keyring, (id) => userChanges.announce(id));
    await app.register(envRoutes, { prefix: "/v1", env });
    await app.register(dataStoreRoutes, { prefix: "/v1", stores: dataStores.service });
    await app.register(actionRoutes, { prefix: "/v1", actions });
    await app.register(streamRoutes, { events, db: store.db }); // SSE, at the host (no /v1)
    await app.register(runStreamRoutes, {
      runs,
      owns: async (userId, id) => (await getWorkflow(store.db, userId, id)) !== undefined,
    });
    await app.register(mcpRoutes, {
      allowedOrigins: config.mcpAllowedOrigins,
      publicUrl: getPublicUrl,
      version: API_VERSION,
    }); // MCP, beside /healthz
    await app.register(runtime.httpRoutes); // `/e/:id`: HTTP triggers, no auth
    if (runtime.httpFastPath) setFastPath(app, runtime.httpFastPath); // their ingest case, before Fastify
    closers.push(() => closeGracefully(app));

    // -- listen, then start the background work ------------------------------------------------
    await app.listen({ host: config.host, port: config.port });
    const url = listeningUrl(app, config.host);
    publicUrl = config.publicUrl ?? url;
    await runtime.start();
    ticker.start();
    await events.startDelivery(runtime.queue);
    const sweeping = dataStores.startSweeping(log);
    closers.push(() => sweeping.stop());

    return {
      app,
      url,
      publicUrl,
      store,
      services: { users, components, sources, events, runtime, runs },
      close: closeAll,
    };
  } catch (err) {
    await closeAll().catch(() => undefined);
    throw err;
  }
}

function listeningUrl(app: FastifyInstance, host: string): string {
  const addr = app.server.address();
  const port = typeof addr === "object" && addr ? addr.port : 0;
  const shown = host.includes(":") ? `[${host}]` : host;
  return `http://${shown}:${port}`;
}
