// @ts-check
/* eslint-disable @typescript-eslint/no-require-imports -- plain CommonJS by design: see worker.cjs */
"use strict";
/**
 * `getFileStream(pathOrUrl)` and `getFileStreamAndMetadata(pathOrUrl)`: a readable stream of a
 * file given as a path (in the sandbox only what the worker may read: its temp dir, and read-only
 * the npm package cache, the sandbox's own code and the shim's libraries, axios and mime-types;
 * see sandbox/mounts.ts), an http(s) URL, or a `data:` URL, and its metadata (size, content
 * type, last modified, name, etag).
 * A remote file whose size the server does not announce is downloaded to the temp dir first,
 * so its size is known; that copy is removed when the stream closes.
 */
const fs = require("node:fs");
const os = require("node:os");
const path = require("node:path");
const { randomUUID } = require("node:crypto");
const { Readable } = require("node:stream");
const { pipeline } = require("node:stream/promises");
const { library } = require("./modules.cjs");

/**
 * @typedef {{ size: number, contentType?: string, lastModified?: Date, name?: string, etag?: string }} FileMetadata
 */

/** @param {string} s */
const isHttpUrl = (s) => /^https?:\/\//i.test(s);
/** @param {string} s */
const isDataUrl = (s) => /^data:/i.test(s);

/** @param {string} name */
function typeOf(name) {
  try {
    const found = library("mime-types").lookup(name);
    return found || undefined;
  } catch {
    return undefined;
  }
}

/** `data:[type][;base64],payload` @param {string} url */
function fromDataUrl(url) {
  const comma = url.indexOf(",");
  if (comma < 0) throw new Error("invalid data URL: no comma");
  const header = url.slice(5, comma);
  const params = header.split(";");
  const base64 = params.includes("base64");
  const type = params[0] || "text/plain";
  const payload = url.slice(comma + 1);
  const bytes = base64 ? Buffer.from(payload, "base64") : Buffer.from(decodeURIComponent(payload), "utf8");
  /** @type {FileMetadata} */
  const metadata = { size: bytes.length, contentType: type };
  return { stream: Readable.from([bytes]), metadata };
}

/** @param {string} file */
async function fromDisk(file) {
  let stats;
  try {
    stats = await fs.promises.stat(file);
  } catch (e) {
    const err = /** @type {any} */ (e);
    throw new Error(
      err && err.code === "ENOENT" ? `File not found: ${file}` : `Cannot read ${file}: ${err && err.message}`,
      { cause: e },
    );
  }
  if (!stats.isFile()) throw new Error(`Not a file: ${file}`);
  /** @type {FileMetadata} */
  const metadata = {
    size: stats.size,
    contentType: typeOf(file),
    lastModified: stats.mtime,
    name: path.basename(file),
  };
  return { stream: fs.createReadStream(file), metadata };
}

/** @param {string} url */
async function request(url) {
  const res = await fetch(url);
  if (!res.ok || !res.body) throw new Error(`Failed to fetch ${url}: ${res.status} ${res.statusText}`);
  return res;
}

/** @param {string} url */
async function fromUrl(url) {
  const res = await request(url);
  const h = res.headers;
  const modified = h.get("last-modified");
  const name = decodeURIComponent(path.posix.basename(new URL(url).pathname)) || undefined;
  /** @type {Omit<FileMetadata, "size">} */
  const base = {
    contentType: h.get("content-type") || (name ? typeOf(name) : undefined),
    lastModified: modified ? new Date(modified) : undefined,
    name,
    etag: h.get("etag") || undefined,
  };
  const length = h.get("content-length");
  const body = Readable.fromWeb(/** @type {any} */ (res.body));
  if (length !== null && /^\d+$/.test(length))
    return { stream: body, metadata: { ...base, size: Number(length) } };
  // Unknown size: keep a copy in the temp dir, measured, then stream that.
  const tmp = path.join(os.tmpdir(), `file-stream-${randomUUID()}`);
  try {
    await pipeline(body, fs.createWriteStream(tmp));
  } catch (e) {
    await fs.promises.rm(tmp, { force: true });
    throw e;
  }
  const stats = await fs.promises.stat(tmp);
  const stream = fs.createReadStream(tmp);
  stream.once("close", () => fs.rm(tmp, { force: true }, () => undefined));
  return { stream, metadata: { ...base, size: stats.size } };
}

/** @param {string} pathOrUrl @returns {Promise<{ stream: import("node:stream").Readable, metadata: FileMetadata }>} */
async function getFileStreamAndMetadata(pathOrUrl) {
  if (typeof pathOrUrl !== "string" || !pathOrUrl)
    throw new TypeError("getFileStreamAndMetadata needs a path or URL");
  if (isDataUrl(pathOrUrl)) return fromDataUrl(pathOrUrl);
  if (isHttpUrl(pathOrUrl)) return fromUrl(pathOrUrl);
  return fromDisk(pathOrUrl);
}

/** @param {string} pathOrUrl */
async function getFileStream(pathOrUrl) {
  if (typeof pathOrUrl === "string" && isHttpUrl(pathOrUrl)) {
    // No metadata wanted: stream the body as it comes.
    const res = await request(pathOrUrl);
    return Readable.fromWeb(/** @type {any} */ (res.body));
  }
  return (await getFileStreamAndMetadata(pathOrUrl)).stream;
}

module.exports = { getFileStream, getFileStreamAndMetadata };
