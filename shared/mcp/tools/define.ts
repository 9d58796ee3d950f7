/**
 * How a tool is declared: name, a description that says when to use it, input and output
 * schemas, the hints a client shows its user before running it, and a body that returns the
 * answer's object (or throws a refusal). `register` wires them onto an McpServer with the
 * result rules of results.ts.
 */
import type { CallToolResult, McpServer, ServerContext, StandardSchemaWithJSON, ToolAnnotations } from "@modelcontextprotocol/server";
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
  /** Built once, here: every request's fresh server instance registers the same schemas. */
  schemas?: { input: StandardSchemaWithJSON; output: StandardSchemaWithJSON };
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

/** Declares a tool (typed; registered later by `register`), its schemas built once. */
export function tool<I extends z.ZodRawShape, O extends z.ZodRawShape>(spec: ToolSpec<I, O>): ToolSpec<I, O> {
  return { ...spec, schemas: { input: convertedOnce(z.object(spec.input)), output: convertedOnce(z.object({ ...spec.output, ...Cut })) } };
}

/**
 * The schema as the SDK takes it (Standard Schema with JSON Schema), its JSON Schema converted
 * once: over HTTP each request has a fresh server instance, which would otherwise convert a
 * tool's input and output schemas on every call (a third of a small call's time in the SDK).
 */
function convertedOnce(schema: z.ZodType): StandardSchemaWithJSON {
  const std = schema["~standard"] as StandardSchemaWithJSON["~standard"];
  const cache = new Map<string, Record<string, unknown>>();
  const memo =
    (io: "input" | "output") =>
    (options: Parameters<StandardSchemaWithJSON["~standard"]["jsonSchema"]["input"]>[0]) => {
      const key = `${io} ${JSON.stringify(options)}`;
      let json = cache.get(key);
      if (!json) cache.set(key, (json = std.jsonSchema[io](options)));
      return json;
    };
  return { "~standard": { ...std, jsonSchema: { input: memo("input"), output: memo("output") } } };
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a list of tools of different shapes
export type AnyTool = ToolSpec<any, any>;

/** The call's signal: the client cancels, or the server stops. */
const signalOf = (ctx: ServerContext, deps: McpDeps) =>
  deps.lifetime ? AbortSignal.any([ctx.mcpReq.signal, deps.lifetime]) : ctx.mcpReq.signal;

export function register(server: McpServer, deps: McpDeps, tools: AnyTool[]): void {
  for (const t of tools) {
    server.registerTool(
      t.name,
      {
        title: t.title,
        description: t.description,
        inputSchema: t.schemas!.input,
        outputSchema: t.schemas!.output,
        annotations: { title: t.title, ...t.annotations },
      },
      (args: unknown, ctx: ServerContext) =>
        run(() => t.run(args as never, { deps, signal: signalOf(ctx, deps) }) as Promise<Record<string, unknown>>, t.list),
    );
  }
}

/** A Standard Schema's issues as one line (path: message, …), the way a refusal names them. */
const issuesText = (issues: ReadonlyArray<{ message: string; path?: ReadonlyArray<PropertyKey | { key: PropertyKey }> }>) =>
  issues
    .map((i) => {
      const path = (i.path ?? []).map((p) => String(typeof p === "object" ? p.key : p)).join(".");
      return path ? `${path}: ${i.message}` : i.message;
    })
    .join(", ");

/**
 * One `tools/call` of `t` without an McpServer around it (server/mcp/direct-call.ts): the steps
 * of the SDK's own handler, on the same schemas and result rules — arguments validated against
 * the input schema the tool advertises, the body, structured output validated against its
 * output schema. Undefined when the arguments do not validate, so that the SDK, which owns the
 * wording of that answer, gives it.
 */
export async function callTool(t: AnyTool, args: unknown, ctx: ToolContext): Promise<CallToolResult | undefined> {
  const input = await t.schemas!.input["~standard"].validate(args ?? {});
  if (input.issues) return undefined;
  const result = await run(() => t.run(input.value as never, ctx) as Promise<Record<string, unknown>>, t.list);
  if (result.isError) return result;
  const output = await t.schemas!.output["~standard"].validate(result.structuredContent);
  if (!output.issues) return result;
  const text = `Output validation error: Invalid structured content for tool ${t.name}: ${issuesText(output.issues)}`;
  return { content: [{ type: "text", text }], isError: true };
}
