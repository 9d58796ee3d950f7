/** What the host reads of a worker in /proc (Linux; elsewhere the answers are empty). */
import fs from "node:fs";

/** Follows the youngest child down from `pid` to the leaf: bwrap → its pid 1 → the worker. */
export function leafDescendant(pid: number | undefined): number | undefined {
  let current = pid;
  for (let depth = 0; current !== undefined && depth < 5; depth++) {
    let children: string[];
    try {
      children = fs
        .readFileSync(`/proc/${current}/task/${current}/children`, "utf8")
        .trim()
        .split(/\s+/)
        .filter(Boolean);
    } catch {
      return current;
    }
    if (children.length === 0) return current;
    current = Number(children[children.length - 1]);
  }
  return current;
}

/** CPU seconds a process has used (user + system), from /proc/<pid>/stat; 0 where unknown. */
export function cpuSecondsOf(pid: number): number {
  if (process.platform !== "linux") return 0;
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    // utime and stime are fields 14 and 15 (from 1, counting pid and comm), in clock ticks (100/s).
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return 0;
  }
}
