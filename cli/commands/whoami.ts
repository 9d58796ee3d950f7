/** `whoami`: the user behind the key, the server, and today's quota use. */
import type { Command } from "commander";
import type { Context } from "../context.js";
import type { Act } from "../options.js";

export function registerWhoami(program: Command, act: Act) {
  program
    .command("whoami")
    .description("show the user of the API key, the server and today's quota use")
    .action(act(whoami));
}

async function whoami(ctx: Context): Promise<void> {
  const conn = await ctx.connect();
  const { api_key: _key, ...me } = await conn.client.getMe();
  const used = (u: number | undefined, q: number | undefined, unit = "") =>
    u === undefined ? "-" : `${u}${unit}${q === undefined ? "" : ` of ${q}${unit}`}`;
  ctx.out.fields(
    [
      ["username", me.username],
      ["email", me.email || "-"],
      ["id", me.id],
      ["admin", me.admin ? "yes" : "no"],
      ["server", `${conn.baseUrl}${conn.via === "local" ? " (local)" : ""}`],
      ["invocations today", used(me.daily_invocations_used, me.daily_invocations_quota)],
      ["compute today", used(me.daily_compute_time_used, me.daily_compute_time_quota, " ms")],
    ],
    { ...me, server: conn.baseUrl },
  );
}
