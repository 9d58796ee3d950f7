/** What the workflow benches (runs, controls) share: their two-step workflow and its run counts. */
import fs from "node:fs";
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

/**
 * CPU seconds used so far (user + system, from /proc) by a server's process and by its
 * descendants (the sandbox workers); NaN where there is no /proc. Read before and after each
 * window: per run, it depends far less on what else runs on the machine than a rate does.
 */
export function cpuOfTree(pid: number | undefined): { server: number; sandbox: number } {
  const procs = new Map<number, { ppid: number; cpu: number }>();
  try {
    for (const d of fs.readdirSync("/proc")) {
      if (!/^\d+$/.test(d)) continue;
      try {
        const stat = fs.readFileSync(`/proc/${d}/stat`, "utf8");
        const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
        procs.set(Number(d), { ppid: Number(f[1]), cpu: (Number(f[11]) + Number(f[12])) / 100 });
      } catch {
        // gone meanwhile
      }
    }
  } catch {
    return { server: NaN, sandbox: NaN };
  }
  let sandbox = 0;
  const open = [pid];
  const seen = new Set<number>();
  while (open.length > 0) {
    const parent = open.pop();
    for (const [child, p] of procs) {
      if (p.ppid !== parent || seen.has(child)) continue;
      seen.add(child);
      sandbox += p.cpu;
      open.push(child);
    }
  }
  return { server: procs.get(pid ?? -1)?.cpu ?? NaN, sandbox };
}
