/**
 * What is wrong with a workflow.yaml, in words a person can act on. The schema's unions (a step
 * is a code step or an action step; a schedule a cron or an interval; endpoint auth none or
 * bearer) fail as "Invalid input" on their own: here such a failure says what the item needs,
 * or, when the item plainly meant one kind, that kind's own first issue with its full path.
 */
import type * as z from "../../shared/zod.js";

type Issue = z.core.$ZodIssue;
type Path = PropertyKey[];

/** Which of each union's kinds an item means (its index in the schema's union), and what the union needs. */
const KINDS: Array<{
  at: (path: Path) => boolean;
  kindOf: (item: Record<string, unknown>) => number | undefined;
  needs: string;
}> = [
  {
    at: (p) => p.length === 2 && p[0] === "steps",
    kindOf: (i) => ("file" in i === "action" in i ? undefined : "file" in i ? 0 : 1),
    needs: "a step has `file` (the .mjs file of its code) or `action` (an action's key), with a `name`",
  },
  {
    at: (p) => p.length === 2 && p[0] === "schedules",
    kindOf: (i) => ("cron" in i === "interval_seconds" in i ? undefined : "cron" in i ? 0 : 1),
    needs: "a schedule has `cron` (five fields, and `timezone` if not UTC) or `interval_seconds`",
  },
  {
    at: (p) => p.length === 1 && p[0] === "http_auth",
    kindOf: (i) => (i.type === "none" ? 0 : i.type === "bearer" ? 1 : undefined),
    needs: "`type` is none or bearer (the token is never written in the file: see token_env)",
  },
];

function valueAt(root: unknown, path: Path): unknown {
  let v = root;
  for (const key of path)
    v = v && typeof v === "object" ? (v as Record<PropertyKey, unknown>)[key] : undefined;
  return v;
}

/** The issue's path and message, a union's failure replaced by what the item needs. */
export function issueText(issue: Issue, root: unknown): { path: Path; message: string } {
  if (
    issue.code === "unrecognized_keys" &&
    issue.path.join(".") === "http_auth" &&
    issue.keys.includes("token")
  )
    return {
      path: issue.path,
      message:
        "the token is never written in the file: token_env names an environment variable that holds it",
    };
  if (issue.code !== "invalid_union") return { path: issue.path, message: issue.message };
  const kind = KINDS.find((k) => k.at(issue.path));
  const item = valueAt(root, issue.path);
  if (kind) {
    // The item names its kind (`file: x.mjs`, `cron: ...`): that kind's own first issue says more.
    const at =
      item && typeof item === "object" && !Array.isArray(item)
        ? kind.kindOf(item as Record<string, unknown>)
        : undefined;
    const first = at === undefined ? undefined : issue.errors[at]?.[0];
    if (first) return issueText({ ...first, path: [...issue.path, ...first.path] }, root);
    return { path: issue.path, message: kind.needs };
  }
  // Elsewhere: the branch that went furthest (fewest issues), else the plain message.
  const best = [...issue.errors].sort((a, b) => a.length - b.length)[0]?.[0];
  return best
    ? issueText({ ...best, path: [...issue.path, ...best.path] }, root)
    : { path: issue.path, message: issue.message };
}
