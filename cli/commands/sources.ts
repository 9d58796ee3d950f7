/** `delete`, `activate`, `deactivate <source>`: one change to one source, named by id or name. */
import type { Command } from "commander";
import type { Context } from "../context.js";
import type { Act } from "../options.js";
import { componentProps, shownSource } from "../redact.js";
import { resolveSource } from "../sources.js";

export function registerSourceCommands(program: Command, act: Act) {
  program
    .command("delete")
    .description("delete a source, with its events and subscriptions")
    .argument("<source>", "source id or name")
    .action(act((ctx, [ref]) => remove(ctx, ref!)));
  program
    .command("activate")
    .description("switch a source on (its timer runs, its endpoint accepts requests)")
    .argument("<source>", "source id or name")
    .action(act((ctx, [ref]) => setActive(ctx, ref!, true)));
  program
    .command("deactivate")
    .description("switch a source off (kept, with its events; nothing runs)")
    .argument("<source>", "source id or name")
    .action(act((ctx, [ref]) => setActive(ctx, ref!, false)));
}

async function remove(ctx: Context, ref: string): Promise<void> {
  const { client } = await ctx.connect();
  const source = await resolveSource(client, ref);
  await client.deleteSource(source.id);
  if (ctx.out.json) ctx.out.jsonLine({ id: source.id, name: source.name, deleted: true });
  else ctx.out.say(`deleted ${source.id} (${source.name})`);
}

async function setActive(ctx: Context, ref: string, active: boolean): Promise<void> {
  const { client } = await ctx.connect();
  const source = await resolveSource(client, ref);
  // PUT needs a component reference: the source's own keeps its code and props as they are.
  const updated = await client.updateSource(source.id, { component_id: source.component_id, active });
  if (ctx.out.json) {
    const props = await componentProps(client, [updated.component_id]);
    ctx.out.jsonLine(shownSource(updated, props.get(updated.component_id)));
  }
  else ctx.out.say(`${active ? "activated" : "deactivated"} ${updated.id} (${updated.name})`);
}
