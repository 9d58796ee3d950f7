/**
 * The server's Prometheus registry (`GET /metrics`). Each module owns and counts its own
 * families (defined beside the code that counts, with `registers: []`); this file gathers them
 * into one registry per server, adds the gauges read at scrape time (queue depth and the oldest
 * job's age, sandbox processes) and the process defaults. Labels stay few and bounded: route
 * patterns, kinds, reasons; never URLs, ids or user names.
 */
import { collectDefaultMetrics, Gauge, Registry, type Metric } from "prom-client";
import { npmLookups } from "../components/npm-registry.js";
import { eventsAppended } from "../events/event-store.js";
import { httpRequestDuration, httpRequests } from "../http/request-metrics.js";
import { quotaRefusals } from "../quotas/quotas.js";
import { invocationsTotal } from "../runtime/invoke.js";
import { sandboxKills, sandboxSpawns } from "../runtime/sandbox/process.js";
import type { Db } from "../store/db.js";
import { queueStats } from "../store/repos/jobs.js";
import { dbCommitSeconds } from "../store/write-group.js";
import { sseStreams } from "../streams/event-stream.js";

export interface MetricsSources {
  db: Db;
  sandboxProcesses: () => number;
}

export function createMetricsRegistry(sources: MetricsSources): Registry {
  const registry = new Registry();
  const owned: Metric[] = [
    httpRequests,
    httpRequestDuration,
    eventsAppended,
    invocationsTotal,
    quotaRefusals,
    sandboxSpawns,
    sandboxKills,
    sseStreams,
    dbCommitSeconds,
    npmLookups,
  ];
  for (const m of owned) registry.registerMetric(m);

  // Read when scraped: one small query, however busy the queue.
  let stats: Promise<Awaited<ReturnType<typeof queueStats>>> | undefined;
  const readStats = () => (stats ??= queueStats(sources.db).finally(() => setTimeout(() => (stats = undefined), 0)));
  new Gauge({
    name: "headwater_queue_jobs",
    help: "Invocation jobs queued or running (sources, workflows, delayed emits)",
    registers: [registry],
    async collect() {
      this.set((await readStats()).jobs);
    },
  });
  new Gauge({
    name: "headwater_queue_oldest_job_age_seconds",
    help: "Age of the oldest queued job (0 when the queue is empty)",
    registers: [registry],
    async collect() {
      const { oldestCreatedMs } = await readStats();
      this.set(oldestCreatedMs === undefined ? 0 : Math.max(0, (Date.now() - oldestCreatedMs) / 1000));
    },
  });
  new Gauge({
    name: "headwater_sandbox_processes",
    help: "Sandbox worker processes alive or starting, busy or idle",
    registers: [registry],
    collect() {
      this.set(sources.sandboxProcesses());
    },
  });
  collectDefaultMetrics({ register: registry });
  return registry;
}
