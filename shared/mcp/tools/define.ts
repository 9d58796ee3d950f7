/**
 * How a tool is declared: name, a description that says when to use it, input and output
 * schemas, the hints a client shows its user before running it, and a body that returns the
 * answer's object (or throws a refusal). `register` wires them onto an McpServer with the
 * result rules of results.ts.
 */
import type { McpServer, ServerContext, ToolAnnotations } from "@modelcontextprotocol/server";
import { z } from "zod";
import type { McpDeps } from "../deps.js";
import { run, type ListCut } from "../results.js";
import { Cut } from "../schemas.js";

/** The hints, each stated: a client should not have to guess what a tool may change. */
export const READ: ToolAnnotations = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };
export const CREATE: ToolAnnotations = { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false };
export const CHANGE: ToolAnnotations = { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false };
export const DESTROY: ToolAnnotations = { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false };

export interface ToolContext {
  deps: McpDeps;
  /** Aborted when the client cancels the call (or goes away). */
  signal: AbortSignal;
}

export interface ToolSpec<I extends z.ZodRawShape, O extends z.ZodRawShape> {
  name: string;
  title: string;
  description: string;
  input: I;
  output: O;
  annotations: ToolAnnotations;
  /** For list answers: which field holds the items, and the cursor after an item. */
  list?: ListCut<never>;
  run: (args: z.infer<z.ZodObject<I>>, ctx: ToolContext) => Promise<z.infer<z.ZodObject<O>>>;
}

/** Declares a tool (typed; registered later by `register`). */
export function tool<I extends z.ZodRawShape, O extends z.ZodRawShape>(spec: ToolSpec<I, O>): ToolSpec<I, O> {
  return spec;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a list of tools of different shapes
export type AnyTool = ToolSpec<any, any>;

export function register(server: McpServer, deps: McpDeps, tools: AnyTool[]): void {
  for (const t of tools) {
    server.registerTool(
      t.name,
      {
        title: t.title,
        description: t.description,
        inputSchema: z.object(t.input),
        outputSchema: z.object({ ...t.output, ...Cut }),
        annotations: { title: t.title, ...t.annotations },
      },
      (args: unknown, ctx: ServerContext) =>
        run(() => t.run(args as never, { deps, signal: ctx.mcpReq.signal }) as Promise<Record<string, unknown>>, t.list),
    );
  }
}
