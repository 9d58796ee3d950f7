/**
 * Reading a component file for the API. The server takes one file of code; a file with relative
 * imports (`./helpers.js`) is bundled with esbuild (already the project's bundler) into one,
 * npm packages left as imports for the server to install. A file without relative imports is
 * sent as written, so its `code_hash` is the file's. The bundle's inputs are the files `dev`
 * watches.
 */
import fs from "node:fs";
import path from "node:path";
import { build, type BuildFailure } from "esbuild";
import { CliError, UsageError } from "../errors.js";

export interface ComponentFile {
  /** The code to send as `component_code`. */
  code: string;
  /** Absolute paths of the file and every local file it imports. */
  inputs: string[];
}

export async function readComponentFile(file: string): Promise<ComponentFile> {
  const abs = path.resolve(file);
  let text: string;
  try {
    text = fs.readFileSync(abs, "utf8");
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new UsageError(code === "ENOENT" ? `no such file: ${file}` : `cannot read ${file}: ${(err as Error).message}`);
  }
  if (text.trim() === "") throw new CliError(`${file} is empty`);
  const esm = /^\s*(export|import)\b/m.test(text);
  let result;
  try {
    result = await build({
      entryPoints: [abs],
      bundle: true,
      write: false,
      metafile: true,
      platform: "node",
      target: "node20",
      format: esm ? "esm" : "cjs",
      packages: "external",
      logLevel: "silent",
      absWorkingDir: path.dirname(abs),
    });
  } catch (err) {
    throw new CliError(buildErrorLine(err as BuildFailure, file));
  }
  const inputs = Object.keys(result.metafile.inputs).map((p) => path.resolve(path.dirname(abs), p));
  const needsBundle = inputs.length > 1 || /\.[mc]?tsx?$/.test(abs);
  return { code: needsBundle ? result.outputFiles[0]!.text : text, inputs };
}

function buildErrorLine(err: BuildFailure, file: string): string {
  const first = err.errors?.[0];
  if (!first) return `${file}: ${err.message.split("\n")[0]}`;
  const where = first.location ? `${first.location.file}:${first.location.line}:${first.location.column + 1}` : file;
  return `${where}: ${first.text}`;
}
