/**
 * Data store calls from code in the sandbox (sandbox/data-store.cjs), for the owner of the
 * worker process that sent them (a process serves one user only: sandbox/pool.ts). Each call
 * names its store, and RecordOps finds it among the owner's stores every time: code holding
 * another user's store id reads "not found", as the API answers. A run's writes (a workflow's
 * steps', a queued source run's) carry a call key and are made once per attempt (once.ts).
 */
import { ConflictError, InvalidRequestError, NotFoundError } from "../errors.js";
import type { CallContext } from "../runtime/sandbox/calls.js";
import type { CallServer } from "../runtime/sandbox/process.js";
import type { CallKey } from "../store/repos/data-store-calls.js";
import type { OnceWrites } from "./once.js";
import type { RecordOps } from "./records.js";

/** One call: its operation and arguments as the worker sent them (unchecked), and its run's step. */
type CallHandler = (op: string, args: unknown, ctx?: CallContext) => Promise<unknown>;

/** Records `entries()` and `keys()` read per call. */
const PAGE = 1000;

/** The operations that write: each made once per run attempt (once.ts). Reads are not numbered. */
const WRITES = new Set(["set", "setTtl", "delete", "clear", "increment", "compareAndSet"]);

/** The calls of a worker process serving `owner`. */
export function dataStoreCalls(ops: RecordOps, once: OnceWrites): (owner: string) => CallServer {
  return (owner) => ({ handle: handlerFor(ops, once, owner), error: callError });
}

/**
 * A write's call key in its run: numbered now, as the call arrives (calls arrive in the order
 * the step's code made them), before anything is awaited.
 */
function keyOf(op: string, ctx: CallContext | undefined): CallKey | undefined {
  if (!ctx || !WRITES.has(op)) return undefined;
  return { runId: ctx.runId, attempt: ctx.attempt, step: ctx.step, ordinal: ctx.nextWrite() };
}

function handlerFor(ops: RecordOps, once: OnceWrites, owner: string): CallHandler {
  return async (op, raw, ctx) => {
    const key = keyOf(op, ctx);
    const args = (raw && typeof raw === "object" ? raw : {}) as Record<string, unknown>;
    // An increment of a number there already: with its key in one statement where it can be.
    if (op === "increment")
      return once.run(
        key,
        (o) => write(o, owner, op, args),
        async (k) =>
          (await ops.incrementRecorded(owner, storeOf(args), args.key as string, (args.by as number) ?? 1, k))
            ?.value,
      );
    if (WRITES.has(op)) return once.run(key, (o) => write(o, owner, op, args));
    return read(ops, owner, op, args);
  };
}

/** The store a call names ("": none, not found). */
const storeOf = (args: Record<string, unknown>) => (typeof args.store === "string" ? args.store : "");

/** A write's answer to code (JSON: recorded as it is by once.ts). */
async function write(
  ops: RecordOps,
  owner: string,
  op: string,
  args: Record<string, unknown>,
): Promise<unknown> {
  const store = storeOf(args);
  const key = args.key as string;
  switch (op) {
    case "set":
      await ops.set(owner, store, key, args.value, args.ttl as number | null);
      return null;
    case "setTtl":
      return ops.setTtl(owner, store, key, args.ttl as number | null);
    case "delete":
      return ops.delete(owner, store, key);
    case "clear":
      await ops.clear(owner, store);
      return null;
    case "increment":
      return (await ops.increment(owner, store, key, args.by as number)).value;
    default:
      return ops.compareAndSet(owner, store, key, "expected" in args ? args.expected : undefined, args.value);
  }
}

async function read(
  ops: RecordOps,
  owner: string,
  op: string,
  args: Record<string, unknown>,
): Promise<unknown> {
  const store = storeOf(args);
  const key = args.key as string;
  switch (op) {
    case "get": {
      const rec = await ops.get(owner, store, key);
      return rec ? { value: rec.value } : null;
    }
    case "has":
      return (await ops.get(owner, store, key)) !== undefined;
    case "page": {
      await ops.ownStore(owner, store);
      const after = typeof args.after === "string" ? args.after : undefined;
      const { rows } = await ops.records.page(store, { limit: PAGE, after }, Date.now());
      return {
        rows: rows.map((r) => ({ key: r.key, value: JSON.parse(r.value) })),
        more: rows.length === PAGE,
      };
    }
    default:
      throw new InvalidRequestError(`no data store operation "${op}"`);
  }
}

/**
 * What code is told of a failed call: the reason for the caller's own mistakes (not found, over
 * a limit, not a number); anything else (the database unreachable) without the server's details.
 */
export function callError(err: unknown): { message: string; code?: string } {
  if (err instanceof NotFoundError) return { message: err.message, code: "not_found" };
  if (err instanceof InvalidRequestError || err instanceof ConflictError)
    return { message: err.message, code: err.code };
  return { message: "the data store call failed: the server could not reach its database" };
}
