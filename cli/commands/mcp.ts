/**
 * `mcp`: Headwater as an MCP server over stdio, for an agent's config:
 *   {"command": "npx", "args": ["headwater", "mcp"]}
 * It uses the CLI's connection (flags, profile, variables, or the dashboard's local server) and
 * writes nothing but the protocol on stdout; anything else goes to stderr. Runs until the client
 * closes stdin (or Ctrl-C).
 */
import fs from "node:fs";
import path from "node:path";
import type { Command } from "commander";
import type { Context } from "../context.js";
import type { Act } from "../options.js";
import { serveMcpOverStdio } from "../mcp/stdio.js";

export function registerMcp(program: Command, act: Act) {
  program
    .command("mcp")
    .description("serve MCP over stdio for an AI agent (Claude, Cursor, VS Code), as the connection's user")
    .addHelpText(
      "after",
      `
In an agent's MCP configuration:  {"command": "npx", "args": ["headwater", "mcp"]}
(with "env": {"HEADWATER_API_URL": "...", "HEADWATER_API_KEY": "..."} for a remote server).
Protocol revisions 2025-11-25 and 2026-07-28. Tools, resources and the debug_source prompt:
docs/agents.md. stdout carries only the protocol; messages go to stderr.`,
    )
    .action(act(mcp));
}

async function mcp(ctx: Context): Promise<void> {
  ctx.endsOnSignal();
  const conn = await ctx.connect();
  let version = "0.0.0";
  try {
    version = (JSON.parse(fs.readFileSync(path.join(ctx.appRoot, "package.json"), "utf8")) as { version: string }).version;
  } catch {
    // The version is only shown to clients.
  }
  await serveMcpOverStdio(
    {
      client: conn.client,
      apiKey: conn.apiKey,
      version,
      log: (line) => ctx.out.stderr.write(`headwater: ${line}\n`),
    },
    ctx.signal,
  );
}
