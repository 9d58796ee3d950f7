/**
 * Matching a search's words against components' keys and names (GET /components/search): what a
 * newcomer types is an app (`http`), part of a key (`http-new`), words of a name (`new requests`)
 * or a near spelling (`htpp`, `schedul`). Each candidate gets a rank; the best come first.
 */
import type { ComponentMatch } from "../../shared/resources/index.js";

export type MatchKind = ComponentMatch["match"];

/** Lower rank is better. */
const RANK: Record<MatchKind, number> = { exact: 0, prefix: 1, contains: 2, fuzzy: 3, all: 4 };

export interface Candidate {
  key: string;
  name: string;
}

/** How `query` matches a candidate, or undefined when it does not. An empty query matches all. */
export function matchKind(query: string, c: Candidate): MatchKind | undefined {
  const q = normalise(query);
  if (!q) return "all";
  const key = c.key.toLowerCase();
  const name = normalise(c.name);
  if (key === q || name === q) return "exact";
  const words = [...key.split(/[-_.]/), ...name.split(" ")].filter(Boolean);
  if (key.startsWith(q) || name.startsWith(q) || words.some((w) => w.startsWith(q))) return "prefix";
  if (key.includes(q) || name.includes(q)) return "contains";
  // Several words: each must be found in the key or the name (`new requests`, `http new`).
  const parts = q.split(" ");
  if (parts.length > 1 && parts.every((p) => key.includes(p) || name.includes(p))) return "contains";
  if (q.length >= 3 && parts.every((p) => words.some((w) => near(p, w)))) return "fuzzy";
  return undefined;
}

/** Sorts matches best first: by kind, then the shorter key (the likelier one), then the key. */
export function byRank<T extends Candidate & { match: MatchKind }>(a: T, b: T): number {
  return RANK[a.match] - RANK[b.match] || a.key.length - b.key.length || a.key.localeCompare(b.key);
}

function normalise(s: string): string {
  return s.toLowerCase().replace(/[\s_]+/g, " ").trim();
}

/**
 * A typo's worth apart: the word typed is within one edit (two from 6 letters) of the word, or
 * of its start as long as the word typed (`schedul` of `schedule`, `githb` of `github`).
 */
function near(typed: string, word: string): boolean {
  if (typed.length < 3 || word.length < 3) return false;
  const allowed = typed.length >= 6 ? 2 : 1;
  return distance(typed, word) <= allowed || distance(typed, word.slice(0, typed.length)) <= allowed;
}

/** Edit distance with transpositions (optimal string alignment), for short words. */
export function distance(a: string, b: string): number {
  if (Math.abs(a.length - b.length) > 3) return 99;
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) d[0]![j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let v = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) v = Math.min(v, d[i - 2]![j - 2]! + 1);
      d[i]![j] = v;
    }
  }
  return d[a.length]![b.length]!;
}
