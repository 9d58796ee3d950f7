/**
 * What a benchmark file exports. `bench/run.ts` imports every `bench/*.bench.ts` and runs the
 * cases of its default export in order:
 *
 *   export default defineBench("api", async () => {
 *     const s = await startServer();                 // shared state for the cases
 *     return {
 *       cases: [{ name: "GET /users/me", run: () => s.admin.getMe() }, ...],
 *       ratios: [["list 100 sources", "GET /users/me"]],   // reported as a / b
 *       teardown: () => s.stop(),
 *     };
 *   });
 *
 * Results are printed, never asserted: timings are not pass/fail material.
 */

export interface BenchCase {
  name: string;
  /** One operation; timed individually. */
  run: () => Promise<unknown>;
  /** Timed runs (default 200) after `warmup` untimed ones (default 20). */
  iterations?: number;
  warmup?: number;
}

export interface BenchSuite {
  cases: BenchCase[];
  /** Pairs of case names to report as the ratio of their medians (a / b). */
  ratios?: Array<[string, string]>;
  teardown?: () => Promise<void>;
}

export interface BenchDefinition {
  name: string;
  setup: () => Promise<BenchSuite>;
}

export function defineBench(name: string, setup: () => Promise<BenchSuite>): BenchDefinition {
  return { name, setup };
}
