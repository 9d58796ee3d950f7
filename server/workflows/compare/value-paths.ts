/**
 * Where two recorded values differ, as paths a person reads and an agent can follow:
 * `$return_value.items[2].id`, `exports.total`, `$return_value["a key"]`. A path names the
 * deepest place where the two differ: a key or an item only one side has, or two values of a
 * different kind or of a different value there. Values are JSON as runs record them.
 */

/** A key as a path names it: `.key` when it is an identifier, else `["key"]`. */
const keyPath = (key: string) =>
  /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(key) ? `.${key}` : `[${JSON.stringify(key)}]`;

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/** Collects the paths where `a` and `b` differ under `path`; false once `limit` paths are collected. */
function walk(a: unknown, b: unknown, path: string, out: string[], limit: number): boolean {
  if (a === b) return true;
  if (Array.isArray(a) && Array.isArray(b)) {
    for (let i = 0; i < Math.max(a.length, b.length); i++) {
      const at = `${path}[${i}]`;
      if (i >= a.length || i >= b.length) {
        if (!add(out, at, limit)) return false;
      } else if (!walk(a[i], b[i], at, out, limit)) return false;
    }
    return true;
  }
  if (isPlainObject(a) && isPlainObject(b)) {
    const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
    for (const key of keys) {
      const at = `${path}${keyPath(key)}`;
      if (!(key in a) || !(key in b)) {
        if (!add(out, at, limit)) return false;
      } else if (!walk(a[key], b[key], at, out, limit)) return false;
    }
    return true;
  }
  return add(out, path, limit);
}

function add(out: string[], path: string, limit: number): boolean {
  if (out.length >= limit) return false;
  out.push(path);
  return true;
}

/** The paths under `root` where `a` and `b` differ, at most `limit` of them (`truncated`: there are more). */
export function differingPaths(
  a: unknown,
  b: unknown,
  root: string,
  limit: number,
): { paths: string[]; truncated: boolean } {
  const paths: string[] = [];
  const complete = walk(a ?? null, b ?? null, root, paths, limit);
  return { paths, truncated: !complete };
}
