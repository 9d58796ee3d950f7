/**
 * What a user is shown of a component's error (decisions.md "Workflow runs" > Stacks): "a stack
 * shown anywhere holds the component's own frames and never a path of the server's files".
 * Runs in the server on the text the sandbox sent (hostile code may have written any of it), so
 * it is a whitelist: a frame stays only when it is the component's.
 *
 * What a worker's stack holds, seen on real runs (Node 20-24; worker.cjs serialises `err.stack`):
 *   - the component's files, evaluated by sandbox/loader.cjs under the virtual folder
 *     `/component` (`/component/index.mjs:2:28`, `/component/_1/common/utils.mjs:...`): kept;
 *   - packages it imports, from the npm cache `<dataDir>/npm/<spec>/node_modules/<name>/...`
 *     (a vendor `@pipedream/<app>` package's dependencies among them): the component's code, not
 *     the server's, so kept, with the cache's absolute path cut to the package's own
 *     (`json5/lib/parse.js:1110:17`);
 *   - files in the worker's temp dir `<dataDir>/sandbox/<pid>-<uuid>` (the component's TMPDIR):
 *     kept as `$TMPDIR/...`;
 *   - the server's files: sandbox/worker.cjs, steps.cjs, loader.cjs, the platform shim, the
 *     server's node_modules (axios under the shim): dropped, as is every other absolute path;
 *   - Node's own frames: `node:internal/...` dropped; `node:fs:448:20`, `<anonymous>`
 *     (`Array.map`), `index 0` (`Promise.all`) kept only between the component's frames, where
 *     they tell what the component called (a `node:events` frame called by the shim's axios
 *     tells nothing).
 * Lines that are not frames (the error's name and message, `Caused by: ...`, `Require stack:`)
 * stay, with the same paths rewritten and any other path of the server replaced by `<server>`.
 * The result is a fixed point: applying it again changes nothing (the runner and
 * delivery/error-event.ts may both see one stack).
 */
import fs from "node:fs";
import path from "node:path";
import { APP_ROOT } from "../../shared/app-paths.js";
import { SANDBOX_DIR, sandboxPackageEntries } from "./sandbox/mounts.js";

export interface StackOptions {
  /** Data dirs besides those of the runtimes of this process (registerDataDir). */
  dataDirs?: readonly string[];
  /** Further folders of the server's own files, never shown. */
  serverDirs?: readonly string[];
}

/** What stands for a path of the server's files in a message. */
export const SERVER_PLACEHOLDER = "<server>";
/** What stands for a worker's temp dir: the variable the component reads it from. */
export const TMPDIR_PLACEHOLDER = "$TMPDIR";

/**
 * `stack` as a user sees it: its message lines (server paths scrubbed) and only the
 * component's frames. Also fit for any text that may have printed a stack (a log line of
 * `console.error(err)`): lines that are not frames only have their paths scrubbed.
 */
export function componentStack(stack: string, opts?: StackOptions): string {
  if (typeof stack !== "string" || stack === "") return typeof stack === "string" ? stack : "";
  const dirs = knownDirs(opts);
  // Most log lines hold neither a frame nor a known path: left as they are, cheaply.
  if (!FRAME_HINT.test(stack) && !stack.includes(EGRESS_MARK) && !dirs.needles.some((n) => stack.includes(n)))
    return stack;
  const lines = stack.split("\n");
  const out: string[] = [];
  /** Neutral frames waiting for the next frame that decides whether they are shown. */
  let pending: string[] = [];
  for (const line of lines) {
    const frame = parseFrame(line);
    if (!frame) {
      // A header (or the end of a section): neutral frames before it had no component caller.
      pending = [];
      out.push(scrub(line, dirs));
      continue;
    }
    const judged = judgeFrame(line, dirs);
    if (judged.kind === "neutral") pending.push(line);
    else if (judged.kind === "component") {
      out.push(...pending, judged.line);
      pending = [];
    } else pending = [];
  }
  return out.join("\n");
}

/**
 * `text` with every path of the server cut out: npm cache paths as the package's own, the
 * worker's temp dir as `$TMPDIR`, the rest of the data dir, the install dir and the server's
 * node_modules as `<server>`. For messages shown to users that carry no stack.
 */
export function scrubServerPaths(text: string, opts?: StackOptions): string {
  if (typeof text !== "string" || text === "") return typeof text === "string" ? text : "";
  const dirs = knownDirs(opts);
  if (!text.includes(EGRESS_MARK) && !dirs.needles.some((n) => text.includes(n))) return text;
  return text
    .split("\n")
    .map((l) => scrub(l, dirs))
    .join("\n");
}

const registered = new Map<string, number>();

/**
 * Tells this module a runtime's data dir (its npm cache and workers' temp dirs are under it).
 * Counted, so that two runtimes on one dir (a restart) keep it until both are closed; the
 * returned function forgets it.
 */
export function registerDataDir(dataDir: string): () => void {
  const dir = path.resolve(dataDir);
  registered.set(dir, (registered.get(dir) ?? 0) + 1);
  knownMemo = undefined;
  let done = false;
  return () => {
    if (done) return;
    done = true;
    const n = (registered.get(dir) ?? 1) - 1;
    if (n <= 0) registered.delete(dir);
    else registered.set(dir, n);
    knownMemo = undefined;
  };
}

// ---------------------------------------------------------------------------------------------

type Kind = "component" | "neutral" | "server";

interface Dirs {
  /** Data dirs as they may be written (given, real, file URL), longest first. */
  data: string[];
  /** Folders of the server's files (install dir, sandbox code, its node_modules), longest first. */
  server: string[];
  /** Every string above, to tell quickly whether a text holds any. */
  needles: string[];
}

// Every pattern here is linear in its text (no nested or adjacent unbounded repeats): it reads
// what hostile code wrote, on the server's event loop.
const LINE_COL = /:\d+(?::\d+)?$/;
const PLACEHOLDER = /^(?:<anonymous>|native|unknown location|index \d+)$/;
const FRAME_HINT = /(?:^|\n)[ \t]*at\s/;
/** V8 writes frames of a few hundred characters; a longer line is text, not parsed as one. */
const MAX_FRAME_LENGTH = 2000;
const RELATIVE_LOCATION = /^[^\s<>()/\\][^\s<>()]*:\d+(?::\d+)?$/;
// A worker's egress directory (sandbox/process.ts: `<os tmp>/hw-eg-<pid>-<random>`), as a
// socket's path in a network error's message.
const EGRESS_MARK = "hw-eg-";
// An absolute path or file URL, POSIX or Windows, at a place a path can start.
const ABSOLUTE = /(?:^|[\s('"`=,])(?:file:\/\/|\/|[A-Za-z]:[\\/])/;

/**
 * `    at fn (location)` or `    at location`, where a location ends in `:line:col` or is one of
 * V8's placeholders (`<anonymous>`, `index 0`). Nothing else is a frame: a log line "    at noon"
 * stays text. An eval frame's location holds parentheses of its own: the one that closes the
 * line is matched from the end.
 */
function parseFrame(line: string): { location: string } | undefined {
  if (line.length > MAX_FRAME_LENGTH) return undefined;
  const t = line.trim();
  if (!t.startsWith("at ")) return undefined;
  const body = t.slice(3).trimStart();
  let location = body;
  if (body.endsWith(")")) {
    let depth = 0;
    for (let i = body.length - 1; i >= 0; i--) {
      if (body[i] === ")") depth++;
      else if (body[i] === "(" && --depth === 0) {
        location = body.slice(i + 1, -1).trim();
        break;
      }
    }
  }
  if (PLACEHOLDER.test(location) || LINE_COL.test(location)) return { location };
  return undefined;
}

/** Whether a frame is the component's (with its paths rewritten), Node's, or the server's. */
function judgeFrame(line: string, dirs: Dirs): { kind: Kind; line: string } {
  const rewritten = rewrite(line, dirs);
  if (rewritten.server) return { kind: "server", line };
  const text = rewritten.text;
  const after = text.replace(/^\s*at\s+/, "");
  // Any absolute path left is not the component's: only /component is (the loader's folder).
  const withoutComponent = after.replace(/(?:file:\/\/)?\/component\//g, "");
  if (ABSOLUTE.test(` ${withoutComponent}`)) return { kind: "server", line };
  if (rewritten.kept || after !== withoutComponent) return { kind: "component", line: text };
  const location = parseFrame(text)?.location ?? "";
  if (/(?:^|[\s(])(?:node:)?internal[\\/]/.test(after)) return { kind: "server", line };
  // A relative path with a line (not Node's `node:fs:448:20`, not `<anonymous>:1:1`): a package
  // or temp dir frame this module rewrote before, so that a second pass keeps what the first did.
  if (!location.startsWith("node:") && RELATIVE_LOCATION.test(location))
    return { kind: "component", line: text };
  return { kind: "neutral", line: text };
}

/** A header line with the server's paths cut out (the component's rewritten as in frames). */
function scrub(line: string, dirs: Dirs): string {
  let text = line;
  if (text.includes(EGRESS_MARK)) text = scrubEgressPaths(text);
  if (!dirs.needles.some((n) => text.includes(n))) return text;
  text = rewrite(text, dirs).text;
  for (const d of dirs.server) text = replacePaths(text, d, () => SERVER_PLACEHOLDER);
  return text;
}

/**
 * Rewrites the data dir's paths in `line`: the npm cache's as package paths and a worker temp
 * dir's as `$TMPDIR/...` (`kept`: the line held one); any other path under the data dir becomes
 * `<server>`. `server`: the line held a path of the server's (that one, or of the install dir).
 */
function rewrite(line: string, dirs: Dirs): { text: string; kept: boolean; server: boolean } {
  let text = line;
  let kept = false;
  let server = false;
  for (const d of dirs.data) {
    if (!text.includes(d)) continue;
    text = replacePaths(text, d, (rest) => {
      const npm = /^[\\/]npm[\\/](.*)$/s.exec(rest);
      if (npm) {
        kept = true;
        const inPackages = npm[1]!.split(/[\\/]node_modules[\\/]/);
        return inPackages[inPackages.length - 1]!.replace(/\\/g, "/");
      }
      const tmp = /^[\\/]sandbox[\\/][^\\/]+(.*)$/s.exec(rest);
      if (tmp) {
        kept = true;
        return TMPDIR_PLACEHOLDER + tmp[1]!.replace(/\\/g, "/");
      }
      server = true;
      return SERVER_PLACEHOLDER;
    });
  }
  if (dirs.server.some((d) => text.includes(d))) server = true;
  return { text, kept, server };
}

// What ends a path in a text: whitespace, a quote, a bracket, a comma or semicolon.
const PATH_END = new Set([..." \t\n\r'\"`()<>[]{},;"]);
const isPathChar = (c: string | undefined) => c !== undefined && !PATH_END.has(c);

/** Every occurrence of the folder `dir` (a path prefix ending at a separator or the path's end) replaced. */
function replacePaths(text: string, dir: string, replace: (rest: string) => string): string {
  let out = "";
  let from = 0;
  for (;;) {
    const at = text.indexOf(dir, from);
    if (at < 0) return out + text.slice(from);
    let end = at + dir.length;
    const next = text[end];
    // `/data/dirx` is not under `/data/dir`.
    if (next !== undefined && next !== "/" && next !== "\\" && next !== ":" && isPathChar(next)) {
      out += text.slice(from, end);
      from = end;
      continue;
    }
    while (isPathChar(text[end])) end++;
    const rest = text.slice(at + dir.length, end);
    // A frame's `:line:col` belongs to the location, not the path: kept after the replacement.
    const lineCol = /:\d+(?::\d+)?$/.exec(rest)?.[0] ?? "";
    out += text.slice(from, at) + replace(rest.slice(0, rest.length - lineCol.length)) + lineCol;
    from = end;
  }
}

/** Paths of a worker's egress directory (`<os tmp>/hw-eg-<pid>-<random>/...`) as `<server>`. */
function scrubEgressPaths(text: string): string {
  let out = "";
  let from = 0;
  for (;;) {
    const at = text.indexOf(EGRESS_MARK, from);
    if (at < 0) return out + text.slice(from);
    let start = at;
    while (start > from && isPathChar(text[start - 1])) start--;
    let end = at + EGRESS_MARK.length;
    while (isPathChar(text[end])) end++;
    const token = text.slice(start, end);
    // Only a path: a word that merely holds the mark stays.
    const isPath = /^(?:file:\/\/|\/|[A-Za-z]:[\\/])/.test(token);
    out += text.slice(from, start) + (isPath ? SERVER_PLACEHOLDER : token);
    from = end;
  }
}

let serverDirsMemo: string[] | undefined;

/** The server's own folders: install dir, sandbox code, the node_modules its packages are in. */
function serverDirs(): string[] {
  if (serverDirsMemo) return serverDirsMemo;
  const dirs = [APP_ROOT, SANDBOX_DIR, path.join(APP_ROOT, "node_modules")];
  try {
    // A worktree's node_modules may be a link to another checkout's: the real folders count.
    for (const entry of Object.values(sandboxPackageEntries())) {
      const m = /^(.*[\\/]node_modules)[\\/]/.exec(entry);
      if (m) dirs.push(m[1]!);
    }
  } catch {
    // A missing sandbox package fails the workers' start with its own message; not this one's to tell.
  }
  serverDirsMemo = expand(dirs).dirs;
  return serverDirsMemo;
}

/** The registered dirs' forms, until the registry changes (a log line asks for them each time). */
let knownMemo: Dirs | undefined;

function knownDirs(opts: StackOptions | undefined): Dirs {
  if (!opts && knownMemo) return knownMemo;
  const data = expand([...registered.keys(), ...(opts?.dataDirs ?? [])]);
  const extra = expand(opts?.serverDirs ?? []);
  const server = [...serverDirs(), ...extra.dirs].sort((a, b) => b.length - a.length);
  const dirs = { data: data.dirs, server, needles: [...data.dirs, ...server] };
  // A dir not made yet is remembered once its real path is known.
  if (!opts && data.complete) knownMemo = dirs;
  return dirs;
}

const realMemo = new Map<string, string>();

/**
 * Each folder as a stack may write it: as given, real (no links), and as a file URL; longest
 * first. `complete`: every folder's real path was found.
 */
function expand(given: readonly string[]): { dirs: string[]; complete: boolean } {
  const out = new Set<string>();
  let complete = true;
  for (const dir of given) {
    if (!dir || !path.isAbsolute(dir)) continue;
    const forms = [path.resolve(dir)];
    let real = realMemo.get(dir);
    if (real === undefined) {
      try {
        real = fs.realpathSync(dir);
        realMemo.set(dir, real);
      } catch {
        // Not made yet: its real path is looked up again next time.
        complete = false;
      }
    }
    if (real) forms.push(real);
    for (const f of forms) {
      if (f === path.parse(f).root) continue;
      out.add(f);
      // file:///a%20b/... as Node writes an ES module's frames.
      out.add(`file://${encodeURI(f.replace(/\\/g, "/")).replace(/^(?=[A-Za-z]:)/, "/")}`);
    }
  }
  return { dirs: [...out].sort((a, b) => b.length - a.length), complete };
}
