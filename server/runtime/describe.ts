/**
 * ComponentDescriber: what a component's code declares (props, hooks, dedupe, run), learned by
 * evaluating it in a fresh, short-lived sandbox process with a 5 s time limit and a small heap.
 * Code that does not parse, is not a component, loops or allocates without end is a
 * ComponentLoadError; the server process never evaluates it.
 */
import { randomUUID } from "node:crypto";
import type { Config } from "../config.js";
import {
  ComponentLoadError,
  type ComponentDescriber,
  type ComponentDescription,
  type ComponentFiles,
} from "../services.js";
import { bundleKey } from "./bundles.js";
import { OneShotRunner } from "./one-shot.js";
import { scrubServerPaths } from "./stacks.js";
import type { Requester } from "../users/requester.js";

export interface DescriberOptions {
  /** The runtime's one-shot runner (its slots are shared with prop options); one is made when omitted. */
  oneShot?: OneShotRunner;
  timeoutMs?: number;
  memoryMb?: number;
}

export function createDescriber(config: Config, options: DescriberOptions = {}): ComponentDescriber {
  const oneShot = options.oneShot ?? new OneShotRunner(config);
  const timeoutMs = options.timeoutMs ?? 5_000;
  const memoryMb = options.memoryMb ?? Math.min(config.sandbox.memoryMb, 128);

  // Same code, same description: saving one component twice need not start a sandbox again.
  // Failures are not remembered (a package may install later). Callers get their own copy.
  const memo = new Map<string, Promise<ComponentDescription>>();
  const describe = async (code: string, files?: ComponentFiles, requester?: Requester, packagesFrom?: string): Promise<ComponentDescription> => {
    const key = bundleKey(code, files);
    const known = memo.get(key);
    if (known) return structuredClone(await known);
    const job = describeOnce(code, files, requester, packagesFrom);
    memo.set(key, job);
    job.catch(() => memo.delete(key));
    while (memo.size > 200) memo.delete(memo.keys().next().value!);
    return job;
  };

  async function describeOnce(code: string, files?: ComponentFiles, requester?: Requester, packagesFrom?: string): Promise<ComponentDescription> {
    const { bundle, packageDirs } = await oneShot.load(code, files, requester, packagesFrom);
    const outcome = await oneShot.runOnce(
      { t: "describe", id: randomUUID(), bundle, packageDirs },
      { timeoutMs, memoryMb, what: "loading the component" },
    );
    if (outcome.kind === "crash")
      throw new ComponentLoadError("invalid_component", `the component could not be loaded: ${outcome.detail}`);
    const err = outcome.message.error;
    if (err) {
      const where = err.code === "invalid_component" ? "" : `${err.name}: `;
      // A package that fails to load names its files in the npm cache (`Require stack: ...`).
      throw new ComponentLoadError("invalid_component", scrubServerPaths(`the component could not be loaded: ${where}${err.message}`));
    }
    return normalise(outcome.message.result as ComponentDescription);
  }

  return { describe };
}

/** JSON drops `undefined`; put the optional fields back so callers see a full description. */
function normalise(d: ComponentDescription): ComponentDescription {
  return {
    key: d.key ?? undefined,
    name: d.name,
    version: d.version,
    description: d.description ?? undefined,
    props: d.props,
    dedupe: d.dedupe ?? undefined,
    hooks: d.hooks,
    hasRun: d.hasRun,
    type: d.type === "action" ? "action" : "source",
  };
}
