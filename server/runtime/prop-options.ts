/**
 * PropOptionsRunner: a prop's choices from its `async options()`, computed in a fresh sandbox
 * process with the usual limits (the sandbox's heap and network policy; a time limit of the
 * invocation timeout, at most 30 s, since a person is waiting on a form; the asking user's daily
 * quotas, which count each call as an invocation). The worker side is sandbox/prop-options.cjs.
 */
import { randomUUID } from "node:crypto";
import type { Config } from "../config.js";
import { QuotaExceededError } from "../errors.js";
import type { Quotas } from "../quotas/quotas.js";
import {
  ComponentLoadError,
  PropOptionsError,
  type ComponentFiles,
  type PropOptionsAnswer,
  type PropOptionsRequest,
  type PropOptionsRunner,
} from "../services.js";
import type { OneShotRunner } from "./one-shot.js";
import { scrubServerPaths } from "./stacks.js";

const MAX_TIMEOUT_MS = 30_000;

export function createPropOptionsRunner(config: Config, oneShot: OneShotRunner, quotas: Quotas): PropOptionsRunner {
  const timeoutMs = Math.min(config.sandbox.invocationTimeoutMs, MAX_TIMEOUT_MS);
  const memoryMb = config.sandbox.memoryMb;

  async function options(code: string, files: ComponentFiles | undefined, req: PropOptionsRequest): Promise<PropOptionsAnswer> {
    const { bundle, packageDirs } = await oneShot.load(code, files, req.requester);
    const allowed = await quotas.check(req.requester.userId);
    if (!allowed.ok) throw new QuotaExceededError(allowed.message);
    const what = `options() of prop "${req.prop}"`;
    const outcome = await oneShot.runOnce(
      {
        t: "options",
        id: randomUUID(),
        bundle,
        packageDirs,
        prop: req.prop,
        props: req.configuredProps,
        prevContext: req.prevContext,
        query: req.query,
        page: req.page,
      },
      { timeoutMs, memoryMb, what, afterRun: (ranMs) => quotas.record(req.requester.userId, ranMs) },
    );
    if (outcome.kind === "crash") throw new PropOptionsError("options_failed", `${what} stopped the sandbox: ${outcome.detail}`);
    const err = outcome.message.error;
    if (!err) return outcome.message.result as PropOptionsAnswer;
    // The component's error, shown to its user: no path of the server's files in it (decisions.md, Stacks).
    if (err.code === "no_such_prop" || err.code === "no_options" || err.code === "options_failed")
      throw new PropOptionsError(err.code, scrubServerPaths(err.message));
    // The module itself failed to load.
    throw new ComponentLoadError("invalid_component", scrubServerPaths(`the component could not be loaded: ${err.name}: ${err.message}`));
  }

  return { options };
}
