/** What the workflow benches (runs, controls) share: their two-step workflow and its run counts. */
import { step } from "../test/delivery/helpers.js";

/** Step a exports and returns a value; step b returns one made of a's. */
export const TWO_STEPS = [
  {
    name: "a",
    code: step(`const e = steps.trigger.event; $.export("x", 42); return { got: e.body ? e.body.i : e.i };`),
  },
  { name: "b", code: step(`return "b " + steps.a.x + " " + steps.a.$return_value.got;`) },
];

/** Workflow runs so far, by outcome, from a server's `/metrics` (every build measured has the counter). */
export async function workflowRuns(hw: {
  server: { origin: string };
  apiKey: string;
}): Promise<{ ok: number; failed: number }> {
  const text = await (
    await fetch(`${hw.server.origin}/metrics`, { headers: { authorization: `Bearer ${hw.apiKey}` } })
  ).text();
  const runs = (outcome: string) => {
    let n = 0;
    for (const m of text.matchAll(/^headwater_invocations_total\{([^}]*)\} (\S+)$/gm)) {
      if (m[1]!.includes('kind="workflow"') && m[1]!.includes(`outcome="${outcome}"`)) n += Number(m[2]);
    }
    return n;
  };
  return { ok: runs("ok"), failed: runs("error") + runs("quota_exceeded") };
}
