/** `list sources|components|subscriptions|workflows`: every page (or `--limit` rows), newest first. */
import { Argument, type Command } from "commander";
import { pages } from "../../shared/client/index.js";
import type { Component, PropDescriptor, Source, Subscription, Workflow } from "../../shared/resources/index.js";
import type { Context } from "../context.js";
import type { Column } from "../output/table.js";
import { componentProps, shownSource } from "../redact.js";
import { relativeTime } from "../output/time.js";
import { positiveInt, type Act } from "../options.js";

const KINDS = ["sources", "components", "subscriptions", "workflows"] as const;
type Kind = (typeof KINDS)[number];

export function registerList(program: Command, act: Act) {
  program
    .command("list")
    .description("list your sources, components, subscriptions or workflows")
    .addArgument(new Argument("<kind>", "what to list").choices(KINDS))
    .option("--limit <n>", "at most this many rows (default: all)", positiveInt("--limit"))
    .action(act((ctx, [kind], opts) => list(ctx, kind as Kind, opts.limit as number | undefined)));
}

const ago = (s: number) => relativeTime(s * 1000);

async function list(ctx: Context, kind: Kind, limit: number | undefined): Promise<void> {
  const { client } = await ctx.connect();
  const { out } = ctx;
  const yes = (b: boolean) => (b ? out.style.green("yes") : out.style.dim("no"));
  switch (kind) {
    case "sources": {
      const rows = await collect(pages((q) => client.listMySources(q), pageSize(limit)), limit);
      const columns: Column<Source>[] = [
        { header: "ID", cell: (s) => s.id },
        { header: "NAME", cell: (s) => s.name },
        { header: "ACTIVE", cell: (s) => yes(s.active) },
        { header: "COMPONENT", cell: (s) => s.component_id },
        { header: "UPDATED", cell: (s) => ago(s.updated_at) },
      ];
      // The JSON rows carry configured_props: secrets masked, with each component's `secret` flags.
      const props = out.json ? await componentProps(client, rows.map((s) => s.component_id)) : new Map<string, PropDescriptor[]>();
      return out.rows(rows, columns, (s) => shownSource(s, props.get(s.component_id)));
    }
    case "components": {
      const rows = await collect(pages((q) => client.listMyComponents(q), pageSize(limit)), limit);
      const columns: Column<Component>[] = [
        { header: "ID", cell: (c) => c.id },
        { header: "KEY", cell: (c) => c.key ?? "-" },
        { header: "NAME", cell: (c) => c.name },
        { header: "VERSION", cell: (c) => c.version },
        { header: "CREATED", cell: (c) => ago(c.created_at) },
      ];
      // Components carry their code: the JSON rows leave it out (`list --json | jq` stays readable).
      return out.rows(rows, columns, ({ code: _code, ...rest }) => rest);
    }
    case "subscriptions": {
      const all = await client.listMySubscriptions();
      const rows = limit === undefined ? all : all.slice(0, limit);
      const columns: Column<Subscription>[] = [
        { header: "ID", cell: (s) => s.id },
        { header: "EMITTER", cell: (s) => s.emitter_id },
        { header: "LISTENER", cell: (s) => s.listener_id },
        { header: "CHANNEL", cell: (s) => s.event_name || out.style.dim("(default)") },
        { header: "CREATED", cell: (s) => (s.created_at === undefined ? "-" : ago(s.created_at)) },
      ];
      return out.rows(rows, columns);
    }
    case "workflows": {
      const rows = await collect(pages((q) => client.listMyWorkflows(q), pageSize(limit)), limit);
      const columns: Column<Workflow>[] = [
        { header: "ID", cell: (w) => w.id },
        { header: "NAME", cell: (w) => w.name },
        { header: "ACTIVE", cell: (w) => yes(w.active) },
        { header: "STEPS", cell: (w) => String(w.steps.length) },
        { header: "ENDPOINT", cell: (w) => w.endpoint_url },
        { header: "UPDATED", cell: (w) => ago(w.updated_at) },
      ];
      return out.rows(rows, columns, ({ steps, ...rest }) => ({ ...rest, steps: steps.map(({ code: _c, ...s }) => s) }));
    }
  }
}

const pageSize = (limit: number | undefined) => Math.min(100, limit ?? 100);

async function collect<T>(items: AsyncIterable<T>, limit: number | undefined): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) {
    if (limit !== undefined && out.length >= limit) break;
    out.push(item);
  }
  return out;
}

