/**
 * The sandbox's way out: a small egress proxy the server runs for each worker, on unix sockets
 * in a directory only that worker sees. The worker has no network of its own (namespaces mode)
 * or is expected to use none (process mode); its `net`/`tls` layer (sandbox/net-guard.cjs)
 * opens every TCP connection through here.
 *
 * Protocol (ours, two steps, so the worker's socket only reports `connect` once the upstream
 * connection really exists, and no bytes of the protocol ever travel on the data stream, where
 * TLS or HTTP/2 would read them):
 *   1. On `<dir>/c` the worker writes one line `OPEN <host> <port>\n`. The proxy resolves the
 *      name itself (the worker's own DNS is never trusted, and has none in namespaces mode),
 *      applies the address policy (server/net/address-policy.cjs) to every address it would
 *      connect to, connects, and answers `OK <name>\n` or `ERR <code> <message>\n`.
 *   2. `<name>` is a one-time unix socket in the same directory: the worker connects its own
 *      socket to it, and from then on the bytes are the upstream connection's, both ways.
 * `CHECK <host> <port> [4|6]\n` answers `OK <address>\n` (of that IP version): the policy's
 * verdict for UDP (process mode), which the worker then sends to itself.
 * Because the proxy connects to the very address it checked, a name that resolves differently
 * the second time (DNS rebinding) gains nothing.
 */
import { randomBytes } from "node:crypto";
import dns from "node:dns";
import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import { checkAddress, parseAddress, type AddressPolicy } from "./address-policy.cjs";

export type { AddressPolicy };

/** Resolves a host name to the addresses the proxy may connect to (injectable for tests). */
export type Resolver = (hostname: string) => Promise<Array<{ address: string; family: number }>>;

export interface EgressOptions {
  policy: AddressPolicy;
  /** Default: the system resolver (`dns.lookup`, all addresses). */
  resolve?: Resolver;
  /** Time to connect upstream, and for the worker to claim its tunnel. */
  connectTimeoutMs?: number;
  /** Tunnels open at once per worker (each holds two of the server's file descriptors). */
  maxTunnels?: number;
  /** Requests in progress at once per worker (each holds a control connection). */
  maxRequests?: number;
}

/** The control socket's file name in the endpoint's directory. */
export const CONTROL_SOCKET = "c";

/**
 * Where a socket of the endpoint listens: a file in its directory, or on Windows (where Node
 * listens on named pipes, not files) a pipe named after the directory. net-guard.cjs names
 * them the same way.
 */
export function socketPath(dir: string, name: string): string {
  return process.platform === "win32" ? `\\\\.\\pipe\\${path.basename(dir)}-${name}` : path.join(dir, name);
}
const MAX_LINE = 600;
const HOST_NAME =
  /^(?=.{1,253}$)[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,62})(?:\.[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,62}))*\.?$/;

const systemResolve: Resolver = (hostname) =>
  new Promise((resolve, reject) =>
    dns.lookup(hostname, { all: true, verbatim: true }, (err, addresses) =>
      err ? reject(err) : resolve(addresses),
    ),
  );

class Refusal extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** One worker's endpoint: a directory with the control socket and its one-time tunnel sockets. */
export class EgressEndpoint {
  private readonly control: net.Server;
  private readonly sockets = new Set<net.Socket>();
  private readonly pendingTunnels = new Set<net.Server>();
  private tunnels = 0;
  private closed = false;

  private constructor(
    readonly dir: string,
    private readonly options: Required<EgressOptions>,
  ) {
    this.control = net.createServer((socket) => this.onControl(socket));
  }

  /** Listens in `dir` (created 0700 if missing; it must be short: unix socket paths are ≤ 107 bytes). */
  static async open(dir: string, options: EgressOptions): Promise<EgressEndpoint> {
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    const endpoint = new EgressEndpoint(dir, {
      policy: options.policy,
      resolve: options.resolve ?? systemResolve,
      connectTimeoutMs: options.connectTimeoutMs ?? 10_000,
      maxTunnels: options.maxTunnels ?? 256,
      maxRequests: options.maxRequests ?? 64,
    });
    // A worker cannot hold the server's file descriptors with idle requests: the kernel's backlog
    // takes the rest, and each request ends within the connect timeout.
    endpoint.control.maxConnections = endpoint.options.maxRequests;
    await new Promise<void>((resolve, reject) => {
      endpoint.control.once("error", reject);
      endpoint.control.listen(socketPath(dir, CONTROL_SOCKET), () => resolve());
    });
    return endpoint;
  }

  get controlPath(): string {
    return socketPath(this.dir, CONTROL_SOCKET);
  }

  /** Stops listening, ends every tunnel and removes the directory. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.control.close();
    for (const server of this.pendingTunnels) server.close();
    for (const socket of this.sockets) socket.destroy();
    fs.rm(this.dir, { recursive: true, force: true }, () => undefined);
  }

  private track(socket: net.Socket): void {
    this.sockets.add(socket);
    socket.once("close", () => this.sockets.delete(socket));
    socket.on("error", () => undefined);
  }

  private onControl(socket: net.Socket): void {
    this.track(socket);
    socket.setTimeout(this.options.connectTimeoutMs, () => socket.destroy());
    let buffered = "";
    socket.setEncoding("latin1");
    socket.on("data", (chunk: string) => {
      buffered += chunk;
      const end = buffered.indexOf("\n");
      if (end < 0) {
        if (buffered.length > MAX_LINE) socket.destroy();
        return;
      }
      socket.removeAllListeners("data");
      socket.pause();
      // The request is in: from here the connect timeout bounds it, not the line's.
      socket.setTimeout(0);
      this.open(buffered.slice(0, end)).then(
        (name) => socket.end(`OK ${name}\n`),
        (err: unknown) => {
          const r = err instanceof Refusal ? err : new Refusal("EIO", String((err as Error)?.message ?? err));
          socket.end(`ERR ${r.code} ${r.message.replace(/[\r\n]+/g, " ")}\n`);
        },
      );
    });
  }

  /**
   * Handles one request line. `OPEN host port`: connects upstream, answers the tunnel socket's
   * name. `CHECK host port`: resolves and judges only, answers the address to use (the
   * sandbox's UDP in process mode sends its datagrams there itself).
   */
  private async open(line: string): Promise<string> {
    const m = /^(OPEN|CHECK) (\S{1,300}) (\d{1,5})(?: ([46]))?$/.exec(line);
    if (!m) throw new Refusal("EINVAL", "malformed egress request");
    const host = m[2]!;
    const port = Number(m[3]);
    if (port < 1 || port > 65535) throw new Refusal("EINVAL", `invalid port ${port}`);
    if (m[1] === "CHECK") {
      const addresses = await this.addressesFor(host, port);
      const family = m[4] ? Number(m[4]) : undefined;
      const address = addresses.find((a) => !family || net.isIP(a) === family);
      if (!address) throw new Refusal("ENOTFOUND", `${host} has no IPv${family} address`);
      return address;
    }
    if (this.tunnels >= this.options.maxTunnels) {
      throw new Refusal("EMFILE", `more than ${this.options.maxTunnels} connections open at once`);
    }
    const addresses = await this.addressesFor(host, port);
    this.tunnels += 1;
    let upstream: net.Socket;
    try {
      upstream = await this.connectFirst(addresses, port);
    } catch (err) {
      this.tunnels -= 1;
      throw err;
    }
    upstream.once("close", () => (this.tunnels -= 1));
    if (this.closed) {
      upstream.destroy();
      throw new Refusal("ECONNABORTED", "the sandbox worker is stopping");
    }
    try {
      return await this.offerTunnel(upstream);
    } catch (err) {
      upstream.destroy();
      throw err;
    }
  }

  /** The addresses to try, every one of them allowed by the policy (or a refusal). */
  private async addressesFor(host: string, port: number): Promise<string[]> {
    const literal = parseAddress(host);
    if (literal) {
      const verdict = checkAddress(literal.toString(), port, this.options.policy);
      if (!verdict.allowed) throw notAllowed(`${host}:${port}`, verdict.reason);
      return [literal.toString()];
    }
    if (!HOST_NAME.test(host)) throw new Refusal("EINVAL", `invalid host name ${JSON.stringify(host)}`);
    let found: Array<{ address: string }>;
    try {
      found = await this.options.resolve(host);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code ?? "ENOTFOUND";
      throw new Refusal(code, `getaddrinfo ${code} ${host}`);
    }
    if (found.length === 0) throw new Refusal("ENOTFOUND", `getaddrinfo ENOTFOUND ${host}`);
    // One refused address refuses the name: a name that mixes public and local addresses is a
    // rebinding attempt more often than a real service.
    for (const { address } of found) {
      const verdict = checkAddress(address, port, this.options.policy);
      if (!verdict.allowed) throw notAllowed(`${host} (${address}:${port})`, verdict.reason);
    }
    return found.map((a) => a.address);
  }

  private async connectFirst(addresses: string[], port: number): Promise<net.Socket> {
    let last: Error | undefined;
    for (const address of addresses) {
      try {
        return await this.connectOne(address, port);
      } catch (err) {
        last = err as Error;
      }
    }
    const code = (last as NodeJS.ErrnoException | undefined)?.code ?? "ECONNREFUSED";
    throw new Refusal(code, last?.message ?? `could not connect to port ${port}`);
  }

  private connectOne(address: string, port: number): Promise<net.Socket> {
    return new Promise((resolve, reject) => {
      // The address is an IP literal: no second lookup can change it.
      const socket = net.connect({ host: address, port, allowHalfOpen: true });
      const timer = setTimeout(() => {
        socket.destroy();
        reject(new Refusal("ETIMEDOUT", `connect ETIMEDOUT ${address}:${port}`));
      }, this.options.connectTimeoutMs);
      socket.once("connect", () => {
        clearTimeout(timer);
        socket.removeAllListeners("error");
        this.track(socket);
        resolve(socket);
      });
      socket.once("error", (err) => {
        clearTimeout(timer);
        reject(err);
      });
    });
  }

  /** Listens on a fresh one-time socket; the first connection to it gets `upstream`. */
  private async offerTunnel(upstream: net.Socket): Promise<string> {
    const name = `t${randomBytes(12).toString("hex")}`;
    const server = net.createServer({ allowHalfOpen: true });
    this.pendingTunnels.add(server);
    const release = () => {
      this.pendingTunnels.delete(server);
      server.close();
    };
    // Unclaimed (the worker gave up or died): the upstream connection is dropped.
    const timer = setTimeout(() => {
      release();
      upstream.destroy();
    }, this.options.connectTimeoutMs);
    upstream.once("close", () => {
      clearTimeout(timer);
      release();
    });
    server.once("connection", (local) => {
      clearTimeout(timer);
      release();
      this.track(local);
      local.pipe(upstream);
      upstream.pipe(local);
      local.once("close", () => upstream.destroy());
      upstream.once("close", () => local.destroy());
    });
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(socketPath(this.dir, name), () => resolve());
    });
    if (this.closed) release();
    return name;
  }
}

function notAllowed(what: string, reason: string): Refusal {
  return new Refusal("EACCES", `network access to ${what} is not allowed from a component: ${reason}`);
}
