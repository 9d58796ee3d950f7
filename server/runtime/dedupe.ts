/**
 * Dedupe of a source's emits, applied before they reach the event store (hosted semantics):
 * - unique:   an id seen among the last 100 emitted ids is dropped (FIFO memory);
 * - greatest: only ids greater than the greatest seen so far pass (numbers compare as numbers);
 * - last:     of one invocation's emits, only those after the one whose id equals the last
 *             emitted id pass; when none matches, all pass.
 * Emits without an id always pass. State is JSON, kept per source.
 */
export type DedupeMode = "unique" | "greatest" | "last";

export interface DedupeState {
  unique?: Array<string | number>;
  greatest?: string | number;
  last?: string | number;
}

export const UNIQUE_MEMORY = 100;

type Id = string | number;

function compareIds(a: Id, b: Id): number {
  const na = typeof a === "number" ? a : Number(a);
  const nb = typeof b === "number" ? b : Number(b);
  if (Number.isFinite(na) && Number.isFinite(nb) && String(a).trim() !== "" && String(b).trim() !== "") return na - nb;
  return String(a) < String(b) ? -1 : String(a) > String(b) ? 1 : 0;
}

/** Returns the emits that pass and the new state. `idOf` reads an emit's dedupe id. */
export function applyDedupe<T>(mode: DedupeMode | undefined, state: DedupeState, emits: T[], idOf: (e: T) => Id | undefined): { kept: T[]; state: DedupeState } {
  if (!mode) return { kept: emits, state };
  if (mode === "unique") {
    const memory = [...(state.unique ?? [])];
    const seen = new Set(memory.map(String));
    const kept = emits.filter((e) => {
      const id = idOf(e);
      if (id === undefined) return true;
      if (seen.has(String(id))) return false;
      seen.add(String(id));
      memory.push(id);
      return true;
    });
    return { kept, state: { ...state, unique: memory.slice(-UNIQUE_MEMORY) } };
  }
  if (mode === "greatest") {
    let greatest = state.greatest;
    const kept = emits.filter((e) => {
      const id = idOf(e);
      if (id === undefined) return true;
      if (greatest !== undefined && compareIds(id, greatest) <= 0) return false;
      greatest = id;
      return true;
    });
    return { kept, state: greatest === undefined ? state : { ...state, greatest } };
  }
  // last
  const ids = emits.map(idOf);
  const match = state.last === undefined ? -1 : ids.findIndex((id) => id !== undefined && String(id) === String(state.last));
  const kept = match >= 0 ? emits.slice(match + 1) : emits;
  const lastId = [...kept].reverse().map(idOf).find((id) => id !== undefined);
  return { kept, state: lastId === undefined ? state : { ...state, last: lastId } };
}
