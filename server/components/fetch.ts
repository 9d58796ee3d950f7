/**
 * `component_url`: fetch a component's code over http(s), and the relative modules it imports
 * (`./x`, `../x` in import/export/require), so the runtime can load them from `files`.
 * A GitHub `blob` URL is read as its raw file. Size, count and time limits apply; every failure
 * is a `ComponentFetchError` whose message says which URL and why.
 */
import dns from "node:dns";
import type http from "node:http";
import { nodeHttp, nodeHttps } from "../../shared/node-http.js";
import type { LookupFunction } from "node:net";
import type { ComponentFiles } from "../services.js";
import { checkAddress, parseAddress } from "../net/address-policy.cjs";
import { EXTENSIONS, gatherModules } from "./gather.js";

/**
 * Which addresses the server may fetch from: the sandbox's policy (a component's URL is as
 * untrusted as its code). Private addresses only when allowed, the database port never.
 */
export interface NetworkPolicy {
  allowPrivate: boolean;
  blockedPorts: number[];
}

export interface FetchLimits {
  /** Largest single file, in bytes. */
  maxFileBytes: number;
  /** Largest sum of all files, in bytes. */
  maxTotalBytes: number;
  /** Most modules fetched beside the main file. */
  maxFiles: number;
  /** Time limit of each request, in ms. */
  timeoutMs: number;
}

export const DEFAULT_FETCH_LIMITS: FetchLimits = {
  maxFileBytes: 512 * 1024,
  maxTotalBytes: 2 * 1024 * 1024,
  maxFiles: 50,
  timeoutMs: 10_000,
};

export class ComponentFetchError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ComponentFetchError";
  }
}

/** `https://github.com/o/r/blob/ref/path` → `https://raw.githubusercontent.com/o/r/ref/path`. */
export function rawUrl(url: string): string {
  const u = new URL(url);
  const m = /^\/([^/]+)\/([^/]+)\/blob\/(.+)$/.exec(u.pathname);
  if ((u.hostname === "github.com" || u.hostname === "www.github.com") && m) {
    return `https://raw.githubusercontent.com/${m[1]}/${m[2]}/${m[3]}`;
  }
  return url;
}

// Relative imports are gathered by gather.ts, shared with the vendor's npm components.
export { relativeImports } from "./gather.js";

export async function fetchComponent(
  url: string,
  policy: NetworkPolicy,
  limits: FetchLimits = DEFAULT_FETCH_LIMITS,
): Promise<{ code: string; files: ComponentFiles }> {
  let total = 0;
  const get = async (u: URL, optional: boolean): Promise<Fetched | undefined> => {
    const got = await fetchText(u, limits, policy, optional);
    if (got === undefined) return undefined;
    total += Buffer.byteLength(got.text);
    if (total > limits.maxTotalBytes) {
      throw new ComponentFetchError(`the component and its modules exceed ${limits.maxTotalBytes} bytes`);
    }
    return got;
  };

  // Imports resolve against where the file really is (after redirects).
  const main = (await get(new URL(rawUrl(url)), false))!;
  const files = await gatherModules<URL>(
    { at: main.url, path: main.url.pathname, code: main.text },
    async (from, spec) => {
      const found = await fetchModule(from.at, spec, get);
      return { at: found.url, path: found.url.pathname, code: found.code };
    },
    limits.maxFiles,
    () => new ComponentFetchError(`the component imports more than ${limits.maxFiles} modules`),
  );
  return { code: main.text, files };
}

async function fetchModule(
  from: URL,
  spec: string,
  get: (u: URL, optional: boolean) => Promise<Fetched | undefined>,
): Promise<{ url: URL; code: string }> {
  const base = new URL(spec, from);
  if (base.origin !== from.origin) throw new ComponentFetchError(`import ${spec} leaves ${from.origin}`);
  const hasExt = /\.[A-Za-z0-9]+$/.test(base.pathname);
  for (const ext of hasExt ? [""] : EXTENSIONS) {
    const u = new URL(base.pathname + ext + base.search, base);
    const got = await get(u, true);
    if (got !== undefined) return { url: got.url, code: got.text };
  }
  throw new ComponentFetchError(`import ${spec} from ${from.href}: not found`);
}

/** GET a text file; `optional` makes a 404 resolve to undefined (used while trying extensions). */
interface Fetched {
  text: string;
  /** The file's URL after redirects. */
  url: URL;
}

async function fetchText(
  u: URL,
  limits: FetchLimits,
  policy: NetworkPolicy,
  optional: boolean,
): Promise<Fetched | undefined> {
  let res: Awaited<ReturnType<typeof httpGet>>;
  try {
    res = await httpGet(u, limits, policy);
  } catch (err) {
    throw new ComponentFetchError(`could not fetch ${u.href}: ${(err as Error).message}`);
  }
  if (optional && res.status === 404) {
    res.body.destroy();
    return undefined;
  }
  if (res.status < 200 || res.status > 299) {
    res.body.destroy();
    throw new ComponentFetchError(`could not fetch ${res.url.href}: the server answered ${res.status}`);
  }
  const declared = Number(res.headers["content-length"] ?? "0");
  if (declared > limits.maxFileBytes) {
    res.body.destroy();
    throw new ComponentFetchError(`${u.href} is larger than ${limits.maxFileBytes} bytes`);
  }
  // Read with a running count: content-length may be absent or wrong.
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of res.body as AsyncIterable<Buffer>) {
      size += chunk.byteLength;
      if (size > limits.maxFileBytes) {
        res.body.destroy();
        throw new ComponentFetchError(`${u.href} is larger than ${limits.maxFileBytes} bytes`);
      }
      chunks.push(chunk);
    }
  } catch (err) {
    if (err instanceof ComponentFetchError) throw err;
    throw new ComponentFetchError(`could not fetch ${u.href}: ${(err as Error).message}`);
  }
  try {
    return { text: new TextDecoder("utf-8", { fatal: true }).decode(Buffer.concat(chunks)), url: res.url };
  } catch {
    throw new ComponentFetchError(`${u.href} is not UTF-8 text`);
  }
}

// ---------------------------------------------------------------------------------------------
// Transport: node:http(s) rather than fetch, because the address check must happen when the
// connection is made (a DNS lookup hook), or a name could resolve to a private address later.

const MAX_REDIRECTS = 5;

interface HttpAnswer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: http.IncomingMessage;
  /** Where the answer came from, after redirects. */
  url: URL;
}

function httpGet(u: URL, limits: FetchLimits, policy: NetworkPolicy, redirects = 0): Promise<HttpAnswer> {
  if (u.protocol !== "http:" && u.protocol !== "https:")
    return Promise.reject(new Error("only http(s) URLs"));
  const port = Number(u.port || (u.protocol === "https:" ? 443 : 80));
  // The address policy (server/net/address-policy.cjs) judges every address connected to: a
  // literal here (any textual form; URLs normalise mapped IPv6 to hex), a name in the lookup
  // below, which is the one the connection uses, and again after every redirect.
  const literal = parseAddress(u.hostname);
  if (literal) {
    const verdict = checkAddress(literal.toString(), port, policy);
    if (!verdict.allowed) return Promise.reject(new Error(`${u.hostname}:${port} is refused: ${verdict.reason}`));
  }
  const lookup: LookupFunction = (hostname, options, callback) => {
    dns.lookup(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, "", 0);
      for (const a of addresses) {
        const verdict = checkAddress(a.address, port, policy);
        if (!verdict.allowed)
          return callback(new Error(`${hostname} resolves to ${a.address}, refused: ${verdict.reason}`), "", 0);
      }
      if (options.all)
        return (callback as unknown as (e: null, a: dns.LookupAddress[]) => void)(null, addresses);
      callback(null, addresses[0]!.address, addresses[0]!.family);
    });
  };
  return new Promise((resolve, reject) => {
    const get = u.protocol === "https:" ? nodeHttps.get : nodeHttp.get;
    const req = get(u, { lookup, headers: { "user-agent": "headwater", accept: "*/*" } }, (res) => {
      const status = res.statusCode ?? 0;
      const location = res.headers.location;
      if (status >= 300 && status < 400 && location) {
        res.resume();
        clearTimeout(timer);
        if (redirects >= MAX_REDIRECTS) return reject(new Error("too many redirects"));
        return resolve(httpGet(new URL(location, u), limits, policy, redirects + 1));
      }
      clearTimeout(timer);
      // The body has the rest of the time budget.
      res.setTimeout(limits.timeoutMs, () =>
        res.destroy(new Error(`no answer within ${limits.timeoutMs / 1000} s`)),
      );
      resolve({ status, headers: res.headers, body: res, url: u });
    });
    const timer = setTimeout(
      () => req.destroy(new Error(`no answer within ${limits.timeoutMs / 1000} s`)),
      limits.timeoutMs,
    );
    req.on("error", (err) => {
      clearTimeout(timer);
      reject(err);
    });
  });
}
