/**
 * `stats <source>`: the last hour of a source's volume from `GET /sources/{id}/stats` (counted
 * as events are appended and runs end, so retention and deletes do not change it), as a small
 * table of 5-minute rows and a total. `--json` prints the server's one-minute buckets, one
 * object per line.
 */
import type { Command } from "commander";
import type { StatsPoint } from "../../shared/resources/index.js";
import type { Context } from "../context.js";
import type { Act } from "../options.js";
import type { Column } from "../output/table.js";
import { clockTime } from "../output/time.js";
import { resolveSource } from "../sources.js";

const HOUR = 3_600_000;
const ROW_MS = 5 * 60_000;

export function registerStats(program: Command, act: Act) {
  program
    .command("stats")
    .description("a source's volume over the last hour: events, errors, logs, runs and compute time")
    .argument("<source>", "source id or name")
    .action(act((ctx, [ref]) => stats(ctx, ref!)));
}

interface Row {
  label: string;
  events: number;
  errors: number;
  logs: number;
  invocations: number;
  compute_ms: number;
}

async function stats(ctx: Context, ref: string): Promise<void> {
  const { client } = await ctx.connect();
  const source = await resolveSource(client, ref);
  const until = Date.now();
  const s = await client.getSourceStats(source.id, { since: until - HOUR, until, bucket: "minute" });
  const { out } = ctx;
  if (out.json) {
    for (const p of s.series) out.jsonLine({ ...p, time: new Date(p.t).toISOString() });
    return;
  }
  const rows = fiveMinuteRows(s.series);
  const total = rows.reduce<Row>(
    (t, r) => ({
      label: "total",
      events: t.events + r.events,
      errors: t.errors + r.errors,
      logs: t.logs + r.logs,
      invocations: t.invocations + r.invocations,
      compute_ms: t.compute_ms + r.compute_ms,
    }),
    { label: "total", events: 0, errors: 0, logs: 0, invocations: 0, compute_ms: 0 },
  );
  const n = (v: number) => (v === 0 ? out.style.dim("0") : v.toLocaleString("en-US"));
  const columns: Column<Row>[] = [
    { header: "FROM", cell: (r) => (r.label === "total" ? out.style.bold("total") : r.label) },
    { header: "EVENTS", cell: (r) => n(r.events) },
    { header: "ERRORS", cell: (r) => (r.errors > 0 ? out.style.red(r.errors.toLocaleString("en-US")) : n(0)) },
    { header: "LOGS", cell: (r) => n(r.logs) },
    { header: "RUNS", cell: (r) => n(r.invocations) },
    { header: "COMPUTE", cell: (r) => (r.compute_ms === 0 ? out.style.dim("0") : `${r.compute_ms.toLocaleString("en-US")} ms`) },
  ];
  out.say(out.style.dim(`${source.name} (${source.id}), the last hour`));
  out.rows([...rows, total], columns);
}

/** The minute buckets summed into 5-minute rows, oldest first, labelled by their start time. */
function fiveMinuteRows(series: StatsPoint[]): Row[] {
  const rows = new Map<number, Row>();
  for (const p of series) {
    const start = Math.floor(p.t / ROW_MS) * ROW_MS;
    let r = rows.get(start);
    if (!r) rows.set(start, (r = { label: clockTime(start).slice(0, 5), events: 0, errors: 0, logs: 0, invocations: 0, compute_ms: 0 }));
    r.events += p.events;
    r.errors += p.errors;
    r.logs += p.logs;
    r.invocations += p.invocations;
    r.compute_ms += p.compute_ms;
  }
  return [...rows.entries()].sort((a, b) => a[0] - b[0]).map(([, r]) => r);
}
