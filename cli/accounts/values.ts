/**
 * A connected account's values, from where a secret may come: a hidden prompt on a terminal, or
 * stdin when it is not one (a pipe, a file, a secret manager's output). Never from an argument,
 * which would land in the shell's history and in `ps`.
 *
 * stdin is a JSON object (`{"host": "...", "port": 5432}`, values kept as typed; the way to give
 * a value with line breaks, such as a certificate) or `name=value` lines (blank lines and lines
 * starting with `#` skipped; a name is letters, digits, `_ . -`; the value is everything after
 * the first `=`, exactly as written).
 * No message here ever quotes a value, nor the line or JSON text it came from.
 */
import { UsageError } from "../errors.js";
import { createPrompter } from "../output/prompt.js";

export type Values = Record<string, unknown>;

export interface ReadValuesOptions {
  /** The field names to ask for (`--field`, or the account's own fields for `set`); on stdin, the names it must hold. */
  fields: string[];
  stdin?: NodeJS.ReadStream;
  stderr?: NodeJS.WriteStream;
}

export async function readValues(opts: ReadValuesOptions): Promise<Values> {
  const stdin = opts.stdin ?? process.stdin;
  const stderr = opts.stderr ?? process.stderr;
  if (stdin.isTTY === true) return promptValues(opts.fields, stdin, stderr);
  const values = parseValues(await readAll(stdin));
  if (opts.fields.length > 0) checkFields(values, opts.fields);
  return values;
}

/** The values in stdin's text: a JSON object, or `name=value` lines. */
export function parseValues(text: string): Values {
  const body = text.replace(/^\uFEFF/, "");
  if (body.trim() === "") {
    throw new UsageError("no values on stdin: give a JSON object or name=value lines (or run this on a terminal to be asked)");
  }
  // No name=value line starts with { or [ (names are letters, digits, _ . -): this is JSON.
  return /^[{[]/.test(body.trimStart()) ? jsonValues(body) : lineValues(body);
}

function jsonValues(text: string): Values {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    // JSON.parse's message quotes the text around the error, which may be a secret.
    throw new UsageError("stdin starts like JSON but is not valid JSON");
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) throw new UsageError("stdin must be one JSON object of field names and values");
  const values = value as Values;
  if (Object.keys(values).length === 0) throw new UsageError("the JSON object on stdin has no fields");
  if ("" in values) throw new UsageError("the JSON object on stdin has a field with an empty name");
  return values;
}

const LINE_NAME = /^[A-Za-z0-9_.-]+$/;

function lineValues(text: string): Values {
  const values: Values = {};
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!.replace(/\r$/, "");
    if (line.trim() === "" || line.trimStart().startsWith("#")) continue;
    const eq = line.indexOf("=");
    const name = eq < 0 ? "" : line.slice(0, eq).trim();
    // A line that is not name=value (a bare value, a wrapped one) is refused rather than saved
    // under a made-up name that would then be printed as a field.
    if (!LINE_NAME.test(name)) throw new UsageError(`stdin line ${i + 1} is not name=value (names are letters, digits, _ . -; a value with line breaks needs the JSON form)`);
    if (Object.hasOwn(values, name)) throw new UsageError(`stdin gives ${name} twice (line ${i + 1})`);
    values[name] = line.slice(eq + 1);
  }
  return values;
}

/** With `--field` and stdin, stdin must give exactly those fields: a typo is not saved as a new field. */
function checkFields(values: Values, fields: string[]): void {
  const missing = fields.filter((f) => !Object.hasOwn(values, f));
  if (missing.length > 0) throw new UsageError(`stdin has no value for ${missing.join(", ")}`);
  const extra = Object.keys(values).filter((k) => !fields.includes(k));
  if (extra.length > 0) throw new UsageError(`stdin has ${extra.join(", ")}, which --field does not name (give every field, or no --field)`);
}

async function readAll(stdin: NodeJS.ReadStream): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stdin) chunks.push(typeof chunk === "string" ? Buffer.from(chunk) : (chunk as Buffer));
  return Buffer.concat(chunks).toString("utf8");
}

/** One hidden question per field; the field names are asked for first when none are known. */
async function promptValues(fields: string[], stdin: NodeJS.ReadStream, stderr: NodeJS.WriteStream): Promise<Values> {
  const prompter = createPrompter(stdin, stderr);
  try {
    let names = fields;
    if (names.length === 0) {
      const answer = await prompter.ask("Field names of the credential (e.g. host user password), separated by spaces: ");
      names = uniqueNames(answer.split(/[\s,]+/));
      if (names.length === 0) throw new UsageError("no field names given: nothing saved");
    }
    const values: Values = {};
    for (const name of names) {
      const value = await prompter.ask(`${name} (hidden): `, { secret: true });
      if (value === "") throw new UsageError(`no value given for ${name}: nothing saved`);
      values[name] = value;
    }
    return values;
  } finally {
    prompter.close();
  }
}

/** `--field` values (or typed names) without blanks and repeats, in the order given. */
export function uniqueNames(names: string[]): string[] {
  return [...new Set(names.map((n) => n.trim()).filter((n) => n !== ""))];
}
