/**
 * A run's output with its credentials' values hidden (secrets/redact.ts), before anything of it
 * is stored or streamed: log lines, the error it threw (name, message, stack) and what it emitted.
 */
import type { Redactor } from "../secrets/redact.js";
import type { RunOutput } from "./worker-calls.js";

export function redactRun(run: RunOutput, redactor: Redactor): void {
  for (const line of run.logs) line.message = redactor.text(line.message);
  if (run.error) {
    const e = run.error;
    e.message = redactor.text(e.message);
    if (e.name) e.name = redactor.text(e.name);
    if (e.stack) e.stack = redactor.text(e.stack);
  }
  for (const emit of run.emits) {
    emit.data = redactor.emitted(emit.data);
    if (typeof emit.meta.summary === "string") emit.meta.summary = redactor.text(emit.meta.summary);
  }
}
