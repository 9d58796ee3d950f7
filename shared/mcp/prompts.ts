/**
 * Prompts. `debug_source`: the source, its latest `$errors` and `$logs` and the last hour's
 * stats, read when the prompt is asked for and put in front of the model with the question of
 * what goes wrong, so it starts from the facts rather than from guesses.
 */
import { completable, ProtocolError, ProtocolErrorCode, type GetPromptResult, type McpServer } from "@modelcontextprotocol/server";
import { z } from "zod";
import { ApiError } from "../client/index.js";
import type { McpDeps } from "./deps.js";
import { completeIds, resolveSource } from "./emitters.js";
import { readEvents } from "./resources.js";
import { fitToLimit, McpRefusal } from "./results.js";
import { shownSource } from "./tools/resources.js";

/** Events of each observation channel the prompt shows. */
const SHOWN = 10;
/** Each section's JSON is kept under this many bytes, so the prompt stays readable. */
const SECTION_LIMIT = 16 * 1024;

const section = (title: string, value: Record<string, unknown>) => `## ${title}\n\n${fitToLimit(value, undefined, SECTION_LIMIT).text}`;

export async function debugSourcePrompt(deps: McpDeps, ref: string): Promise<GetPromptResult> {
  const source = await resolveSource(deps.client, ref);
  const e = { kind: "source" as const, id: source.id };
  const [errors, logs, stats, emitted] = await Promise.all([
    readEvents(deps, e, "$errors", SHOWN),
    readEvents(deps, e, "$logs", SHOWN),
    deps.client.getSourceStats(e.id, { bucket: "minute" }),
    readEvents(deps, e, "", 3),
  ]);
  const busy = stats.series.filter((p) => p.events + p.errors + p.logs + p.invocations > 0);
  const text = [
    `Find out what goes wrong with the Headwater source "${source.name}" (${source.id}), from the facts below.`,
    "Read its configuration, then its $errors (uncaught errors, failed hooks, quota refusals) and $logs (its console output), and the last hour's activity by minute.",
    "Then say in a few sentences what goes wrong and why, quoting the event ids that show it, and what to change (a prop, the component's code, a quota, its activation).",
    "If nothing goes wrong, say so. The tools get_event (a whole event), list_events (more, or a search with q), event_stats and update_source can help you look further.",
    "",
    section("The source", shownSource(source)),
    section(`$errors: the newest ${SHOWN} (of ${errors.total_count})`, errors),
    section(`$logs: the newest ${SHOWN} (of ${logs.total_count})`, logs),
    section("Last hour, minutes with activity", { bucket: stats.bucket, series: busy }),
    section(`What it emitted last (3 of ${emitted.total_count})`, emitted),
  ].join("\n");
  return {
    description: `Debug the source ${source.name}`,
    messages: [{ role: "user", content: { type: "text", text } }],
  };
}

export function registerPrompts(server: McpServer, deps: McpDeps): void {
  server.registerPrompt(
    "debug_source",
    {
      title: "Debug a source",
      description: "Reads a source, its $errors, its $logs and its stats, and asks the model to say what goes wrong.",
      argsSchema: z.object({
        source: completable(z.string().min(1).max(200).describe("source id (dc_...) or name"), (typed) =>
          completeIds(deps.client, "source", typed, "name"),
        ),
      }),
    },
    async ({ source }) => {
      try {
        return await debugSourcePrompt(deps, source);
      } catch (err) {
        if ((err instanceof ApiError || err instanceof McpRefusal) && err.status === 404) {
          throw new ProtocolError(ProtocolErrorCode.InvalidParams, `no source ${source}`);
        }
        if (err instanceof ApiError || err instanceof McpRefusal) {
          throw new ProtocolError(ProtocolErrorCode.InvalidParams, `${err.message} (${err.code})`);
        }
        throw new ProtocolError(ProtocolErrorCode.InternalError, "the prompt could not be built");
      }
    },
  );
}
