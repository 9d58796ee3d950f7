/**
 * Turning SSE message data into event summaries. Our server sends the summary item itself; the
 * hosted service wraps events as `{"k":"emit","e":...}` (decisions.md), sometimes with only the
 * raw event inside, so anything that is not already a summary is wrapped into one.
 */
import { EventSummary } from "../resources/index.js";

/** Unwraps `{"k":"emit","e":X}` to X; returns any other value unchanged. */
export function unwrapEmit(data: unknown): unknown {
  if (typeof data === "object" && data !== null && (data as { k?: unknown }).k === "emit" && "e" in data) {
    return (data as { e: unknown }).e;
  }
  return data;
}

export interface SummaryContext {
  /** The SSE `id:` of the message, when it had one. */
  messageId: string | undefined;
  emitterId: string;
  /** The channel being watched (`""` default). */
  channel: string;
  now?: () => number;
}

/**
 * The event summary carried by one SSE message, or undefined when it carries nothing usable
 * (no id anywhere: such a message could not be resumed from or deleted, so it is not shown).
 */
export function toEventSummary(data: unknown, ctx: SummaryContext): EventSummary | undefined {
  const inner = unwrapEmit(data);
  const parsed = EventSummary.safeParse(inner);
  if (parsed.success) return parsed.data;
  const outer = typeof data === "object" && data !== null ? (data as Record<string, unknown>) : {};
  const id = ctx.messageId ?? (typeof outer.id === "string" ? outer.id : undefined);
  if (id === undefined) return undefined;
  const ms = Number(id.split("-")[0]);
  return {
    id,
    indexed_at_ms: Number.isFinite(ms) && ms > 0 ? ms : (ctx.now ?? Date.now)(),
    event: inner,
    metadata: { emit_id: id, name: ctx.channel, emitter_id: ctx.emitterId },
  };
}
