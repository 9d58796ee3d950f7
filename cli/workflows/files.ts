/**
 * A workflow as a folder (decisions.md "Building workflows", "Workflow files"): `workflow.yaml`
 * holds its id, the version it was pulled at, its name, triggers, settings and steps in order
 * (`{name, file, props?}` for a code step, whose code is that `.mjs` file of the folder and whose
 * props are its `configured_props`, or `{name, action, props}`), and each code step's code is its own file, so that an editor, a linter and
 * git see plain JavaScript. The file's schema is shared/resources/workflow-file.ts's, which the
 * server also publishes as JSON Schema. Reading a folder checks everything before anything is
 * sent: a file that is missing or a YAML that does not parse or fit is an error naming the file
 * (and the line).
 */
import fs from "node:fs";
import path from "node:path";
import { Document, isNode, LineCounter, parseDocument } from "yaml";
import * as z from "../../shared/zod.js";
import { WorkflowFile, type Workflow } from "../../shared/resources/index.js";
import { UsageError } from "../errors.js";
import type { WorkflowState } from "./changes.js";
import { issueText } from "./file-issues.js";

export const WORKFLOW_FILE = "workflow.yaml";
export type { WorkflowFile };

/** A folder read whole: the file's fields and each step with its code. */
export interface LocalWorkflow {
  file: WorkflowFile;
  steps: WorkflowState["steps"];
}

const codeFile = (name: string) => `${name}.mjs`;

/** A schedule as a file holds it: only its own fields (a server may answer more of it). */
function fileSchedule(s: unknown): Record<string, unknown> {
  const o = (s ?? {}) as Record<string, unknown>;
  return o.interval_seconds !== undefined
    ? { interval_seconds: o.interval_seconds }
    : { cron: o.cron, ...(o.timezone !== undefined ? { timezone: o.timezone } : {}) };
}

/**
 * The triggers the workflow has, as a file holds them, when the server answers them (a server
 * without schedules or endpoint auth answers neither, and the file has neither). The endpoint's
 * token is never written: `{type: "bearer"}` stands for "the token the server has".
 */
function triggersOf(w: Workflow): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (Array.isArray(w.schedules)) out.schedules = w.schedules.map(fileSchedule);
  const auth = w.http_auth as { type?: unknown } | undefined;
  if (auth && (auth.type === "none" || auth.type === "bearer")) out.http_auth = { type: auth.type };
  return out;
}

/**
 * The folder's files for a workflow: workflow.yaml's text and each code step's file.
 * `schemaUrl`: where the server publishes the file's JSON Schema, named in a comment that YAML
 * editors read (`# yaml-language-server: $schema=...`).
 */
export function workflowFiles(w: Workflow, schemaUrl?: string): { yaml: string; code: Map<string, string> } {
  const code = new Map<string, string>();
  const steps = w.steps.map((s) => {
    // A code step's configured props are its `props` in the file (as an action step's are).
    const configured = s.configured_props ?? {};
    const props = Object.keys(configured).length > 0 ? { props: configured } : {};
    if (s.action !== undefined) return { name: s.name, action: s.action, props: s.props ?? {} };
    code.set(codeFile(s.name), s.code);
    return { name: s.name, file: codeFile(s.name), ...props };
  });
  const doc = new Document({
    id: w.id,
    version: w.version ?? 1,
    name: w.name,
    ...(w.http_response !== undefined ? { http_response: w.http_response } : {}),
    ...(w.retry !== undefined ? { retry: w.retry } : {}),
    ...(w.concurrency !== undefined ? { concurrency: w.concurrency } : {}),
    ...(w.throttle !== undefined ? { throttle: w.throttle } : {}),
    ...triggersOf(w),
    steps,
  });
  doc.commentBefore =
    " A Headwater workflow: `headwater workflows push` deploys this folder as its next version.\n" +
    " `version` is the one it was pulled at: a push is refused when the workflow has moved on since." +
    (schemaUrl ? `\n yaml-language-server: $schema=${schemaUrl}` : "");
  return { yaml: doc.toString({ lineWidth: 0 }), code };
}

/** `file line N: message`, where the YAML node of `at` (or its nearest parent that exists) starts. */
function where(doc: Document, lines: LineCounter, at: PropertyKey[]): string {
  for (let n = at.length; n >= 0; n--) {
    const node = n === 0 ? doc.contents : doc.getIn(at.slice(0, n) as Array<string | number>, true);
    if (isNode(node) && node.range) return ` line ${lines.linePos(node.range[0]).line}`;
  }
  return "";
}

/** Reads and checks a workflow folder; a UsageError naming the file (and line) for what is wrong. */
export function readWorkflowFolder(dir: string): LocalWorkflow {
  const yamlPath = path.join(dir, WORKFLOW_FILE);
  if (!fs.existsSync(yamlPath)) throw new UsageError(`${yamlPath}: no such file (headwater workflows pull writes one)`);
  const lines = new LineCounter();
  const doc = parseDocument(fs.readFileSync(yamlPath, "utf8"), { lineCounter: lines, prettyErrors: false });
  const bad = doc.errors[0];
  if (bad) {
    const line = lines.linePos(bad.pos[0]).line;
    throw new UsageError(`${yamlPath}${line ? ` line ${line}` : ""}: not valid YAML: ${bad.message.split("\n")[0]}`);
  }
  const value: unknown = doc.toJS();
  const parsed = z.safeParse(WorkflowFile, value);
  if (!parsed.success) {
    const { path: at, message } = issueText(parsed.error.issues[0]!, value);
    const field = at.length > 0 ? `${at.join(".")}: ` : "";
    throw new UsageError(`${yamlPath}${where(doc, lines, at)}: ${field}${message}`);
  }
  const file = parsed.data;
  const names = new Set<string>();
  const steps = file.steps.map((s, i) => {
    if (names.has(s.name)) throw new UsageError(`${yamlPath}${where(doc, lines, ["steps", i, "name"])}: two steps are named ${s.name}`);
    names.add(s.name);
    if (!("file" in s)) return { name: s.name, code: "", action: s.action, props: s.props ?? {} };
    const codePath = path.join(dir, s.file);
    if (!fs.existsSync(codePath)) throw new UsageError(`${codePath}: no such file (step ${s.name} of ${yamlPath})`);
    const code = fs.readFileSync(codePath, "utf8");
    if (code.trim() === "") throw new UsageError(`${codePath}: the file is empty (step ${s.name})`);
    return { name: s.name, code, ...(s.props && Object.keys(s.props).length > 0 ? { configured_props: s.props } : {}) };
  });
  return { file, steps };
}

/** Writes the workflow's folder; the code files of steps no longer there (per the old workflow.yaml) are removed. */
export function writeWorkflowFolder(dir: string, w: Workflow, schemaUrl?: string): string[] {
  const { yaml, code } = workflowFiles(w, schemaUrl);
  fs.mkdirSync(dir, { recursive: true });
  const old = path.join(dir, WORKFLOW_FILE);
  if (fs.existsSync(old)) {
    const before = parseDocument(fs.readFileSync(old, "utf8")).toJS() as { id?: unknown; steps?: Array<{ file?: unknown }> } | null;
    if (before?.id !== undefined && before.id !== w.id)
      throw new UsageError(`${old} is workflow ${String(before.id)}'s, not ${w.id}'s: pull into another folder`);
    for (const s of before?.steps ?? []) {
      if (typeof s?.file === "string" && /^[^/\\]+\.(mjs|js)$/.test(s.file) && !code.has(s.file))
        fs.rmSync(path.join(dir, s.file), { force: true });
    }
  }
  for (const [name, text] of code) fs.writeFileSync(path.join(dir, name), text);
  fs.writeFileSync(old, yaml);
  return [WORKFLOW_FILE, ...code.keys()];
}

/** Sets `id` and `version` in workflow.yaml, keeping the rest of the file (comments, order) as it is. */
export function recordVersion(dir: string, id: string, version: number): void {
  const yamlPath = path.join(dir, WORKFLOW_FILE);
  const doc = parseDocument(fs.readFileSync(yamlPath, "utf8"));
  const fresh = ["id", "version"].filter((key) => !doc.has(key));
  doc.set("id", id);
  doc.set("version", version);
  // Fields new to the file go first, where pull puts them (set appends them at the end).
  const map = doc.contents as unknown as { items: Array<{ key: unknown }> };
  const first = map.items.filter((item) => fresh.includes(String((item.key as { value?: unknown })?.value ?? item.key)));
  map.items = [...first, ...map.items.filter((item) => !first.includes(item))];
  fs.writeFileSync(yamlPath, doc.toString({ lineWidth: 0 }));
}
