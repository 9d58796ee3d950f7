/** What the workflow-run tests share: waiting for a condition, and reading a runs stream. */
import type { Run } from "../../shared/resources/index.js";
import { sleep } from "../delivery/helpers.js";

/** Resolves with `fn`'s first defined value (errors count as not yet), or fails naming `what`. */
export async function until<T>(
  what: string,
  fn: () => Promise<T | undefined>,
  withinMs = 30_000,
): Promise<T> {
  const end = Date.now() + withinMs;
  for (;;) {
    const v = await fn().catch(() => undefined);
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

/** A POST of JSON to an endpoint URL. */
export const sendJson = (url: string, body: unknown) =>
  fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });

/** Reads a runs SSE stream (GET /workflows/{id}/runs/sse) until it ends, calling `onRun` per message. */
export async function readRuns(stream: Response, onRun: (run: Run) => void): Promise<void> {
  const reader = stream.body!.getReader();
  const decoder = new TextDecoder();
  let buf = "";
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buf += decoder.decode(value, { stream: true });
      let at;
      while ((at = buf.indexOf("\n\n")) >= 0) {
        const data = buf
          .slice(0, at)
          .split("\n")
          .find((l) => l.startsWith("data: "));
        buf = buf.slice(at + 2);
        if (data) onRun(JSON.parse(data.slice(6)) as Run);
      }
    }
  } catch {
    // Aborted by the test: the stream is done.
  }
}
