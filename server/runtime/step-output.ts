/**
 * What the server keeps of a workflow run's output (decisions.md "Runs under faults"), made once
 * where the sandbox's report enters the server, whatever way the run ended (done, thrown, timed
 * out, out of memory), so that the run's record, its `$errors` event and its emits all see the
 * same:
 * - the values of the accounts the run opened and of its owner's secret environment variables are
 *   `****` in every field: its log lines, its exit reason, its errors (name, message, stack),
 *   each step's values and error, its emits; and in its response, which the runner records
 *   (`hide`) after answering the caller in full;
 * - an error keeps at most RUN_LIMITS.messageBytes of name and message and RUN_LIMITS.stackBytes
 *   of stack, an exit its reason's first RUN_LIMITS.messageBytes, so that a run's size is bounded.
 */
import { RUN_LIMITS } from "../../shared/resources/index.js";
import type { Redactor } from "../secrets/redact.js";
import type { RunWorkflowStepsResult } from "./workflow-steps.js";

/** `text` cut to its first `maxBytes` bytes of UTF-8 (on a character boundary); most texts are far below. */
export function cutText(text: string, maxBytes: number): string {
  // A UTF-16 unit is at most 3 bytes of UTF-8: short texts need no measuring.
  if (text.length * 3 <= maxBytes) return text;
  if (text.length <= maxBytes && Buffer.byteLength(text) <= maxBytes) return text;
  // The first maxBytes units hold at least maxBytes bytes: only those are encoded.
  const buf = Buffer.from(text.slice(0, maxBytes), "utf8");
  let end = Math.min(maxBytes, buf.length);
  // Step back over continuation bytes (10xxxxxx) so the cut falls on a character boundary.
  while (end > 0 && end < buf.length && (buf[end]! & 0xc0) === 0x80) end--;
  return buf.subarray(0, end).toString("utf8");
}

const cutMessage = (s: string) => cutText(s, RUN_LIMITS.messageBytes);
const cutStack = (s: string) => cutText(s, RUN_LIMITS.stackBytes);

/** The run's output as the server keeps it (changed in place and returned). */
export function keptOutput(r: RunWorkflowStepsResult, redactors: readonly Redactor[]): RunWorkflowStepsResult {
  for (const red of redactors) hideIn(r, red);
  if (redactors.length > 0) r.hide = (value) => redactors.reduce((v, red) => red.emitted(v), value);
  if (r.error) {
    r.error.code = cutMessage(r.error.code);
    r.error.message = cutMessage(r.error.message);
    r.error.stack = cutStack(r.error.stack);
  }
  for (const step of r.steps) {
    if (!step.error) continue;
    step.error.name = cutMessage(step.error.name);
    step.error.message = cutMessage(step.error.message);
    step.error.stack = cutStack(step.error.stack);
  }
  if (r.exit?.reason) r.exit.reason = cutMessage(r.exit.reason);
  return r;
}

/** One redactor over every field of the output. */
function hideIn(r: RunWorkflowStepsResult, red: Redactor): void {
  for (const line of r.logs) line.message = red.text(line.message);
  if (r.error) {
    r.error.code = red.text(r.error.code);
    r.error.message = red.text(r.error.message);
    r.error.stack = red.text(r.error.stack);
  }
  if (r.exit?.reason) r.exit.reason = red.text(r.exit.reason);
  for (const step of r.steps) {
    if (step.error) {
      step.error.name = red.text(step.error.name);
      step.error.message = red.text(step.error.message);
      step.error.stack = red.text(step.error.stack);
    }
    if (step.return_value !== undefined) step.return_value = red.emitted(step.return_value);
    if (step.exports) step.exports = red.emitted(step.exports);
  }
  for (const e of r.emits) e.data = red.emitted(e.data);
}
