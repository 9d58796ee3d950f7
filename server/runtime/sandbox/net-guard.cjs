// @ts-check
/* eslint-disable @typescript-eslint/no-require-imports -- plain CommonJS by design: see worker.cjs */
/**
 * Inside the sandbox: every outbound connection goes through the server's egress proxy
 * (server/net/egress-proxy.ts), installed before component code is loaded.
 *
 * - TCP: `net.Socket.prototype.connect` (which net, http and http2 use) asks the proxy, on the
 *   unix socket of this worker's egress directory, to open `host:port`; the proxy resolves the
 *   name, applies the address policy (server/net/address-policy.cjs) to the address it connects
 *   to, and hands back a one-time unix socket this socket then connects to. The socket reports
 *   `connect` only once the upstream connection exists; a refusal is an `EACCES` error on it.
 *   The caller's own `lookup` is never used: names are resolved by the proxy only.
 * - TLS (`tls.connect`, which https, http2 and fetch use): the TCP connection is made as above,
 *   and TLS runs over it inside the worker (end to end: the proxy sees ciphertext only).
 * So the worker holds no address rule of its own: the one policy is applied in the server.
 * - Unix sockets are refused.
 * - UDP: refused outright in namespaces mode (the worker's network namespace has no interface,
 *   and the proxy carries TCP only). In process mode, `dgram` sends and connects resolve the
 *   address here and apply the same address policy to it.
 * - DNS servers: choosing one (`setServers`, in every place Node offers it) is refused. Node's
 *   resolver (c-ares) sends its queries from native code, past the guards above, to whatever
 *   server it is given: `setServers(["127.0.0.1:<port>"])` would be UDP and TCP to loopback. Only
 *   the host's own servers (read from /etc/resolv.conf at start) are queried: the server's own
 *   resolver, which the server itself uses. (`dns.lookup`, which most code uses, asks the
 *   system's resolver the same way.)
 * In namespaces mode this is the second layer: code that bypasses it finds no network at all.
 * The replacements are non-writable, non-configurable properties; the originals stay in this
 * closure, out of the component's reach (process.binding is denied by the permission model).
 */
"use strict";
const net = require("node:net");
const tls = require("node:tls");
const dgram = require("node:dgram");
const dns = require("node:dns");
const path = require("node:path");

/**
 * @typedef {{ egressDir: string, udp: boolean, unguardedForTests?: boolean }} GuardConfig
 */

/** @param {string} what @param {string} [reason] */
function refused(what, reason) {
  const err = new Error(
    `network access to ${what} is not allowed from a component${reason ? `: ${reason}` : ""}`,
  );
  /** @type {any} */ (err).code = "EACCES";
  return err;
}

/** @param {GuardConfig} config */
function install(config) {
  // Tests only (a spawn option of the host, never reachable from component code): shows what
  // the OS layer alone holds in namespaces mode.
  if (config.unguardedForTests) return;
  const egress = createEgressClient(config.egressDir);
  installTcp(egress);
  installTls();
  installUdp(config, egress);
  installDns();
}

/**
 * Asks the proxy for a tunnel to host:port: `callback(err)` or `callback(null, socketPath)`.
 * Uses the original connect, kept before it is replaced.
 * @param {string} dir
 */
function createEgressClient(dir) {
  const originalConnect = net.Socket.prototype.connect;
  // As the proxy names its sockets (egress-proxy.ts, socketPath): files, or pipes on Windows.
  const socketPath = (/** @type {string} */ name) =>
    process.platform === "win32" ? `\\\\.\\pipe\\${path.basename(dir)}-${name}` : path.join(dir, name);
  const controlPath = socketPath("c");
  /**
   * `OPEN`: callback(null, tunnel socket path); `CHECK`: callback(null, the address to use, of
   * the IP version `family` when given).
   * @param {"OPEN" | "CHECK"} verb @param {string} host @param {number} port
   * @param {(err: Error | null, answer?: string) => void} callback @param {4 | 6} [family]
   */
  return function ask(verb, host, port, callback, family) {
    const control = new net.Socket();
    let answer = "";
    let settled = false;
    const settle = (/** @type {Error | null} */ err, /** @type {string | undefined} */ tunnel) => {
      if (settled) return;
      settled = true;
      control.destroy();
      callback(err, tunnel);
    };
    control.setEncoding("latin1");
    control.on("data", (/** @type {string} */ chunk) => {
      answer += chunk;
      const end = answer.indexOf("\n");
      if (end < 0) return;
      const line = answer.slice(0, end);
      const ok = verb === "OPEN" ? /^OK (t[0-9a-f]{24})$/.exec(line) : /^OK ([0-9A-Fa-f.:%\w-]+)$/.exec(line);
      if (ok) return settle(null, verb === "OPEN" ? socketPath(ok[1] ?? "") : ok[1]);
      const m = /^ERR (\S+) (.*)$/.exec(line);
      const err = new Error(m ? m[2] : "the egress proxy gave an invalid answer");
      /** @type {any} */ (err).code = m ? m[1] : "EPROTO";
      settle(err);
    });
    control.on("error", (err) => settle(new Error(`the egress proxy is not reachable: ${err.message}`)));
    control.on("close", () => settle(new Error("the egress proxy closed the connection")));
    originalConnect.call(control, { path: controlPath }, () =>
      control.write(`${verb} ${host} ${port}${family ? ` ${family}` : ""}\n`),
    );
  };
}

/** @param {ReturnType<typeof createEgressClient>} egress */
function installTcp(egress) {
  const original = net.Socket.prototype.connect;

  /** @this {import("node:net").Socket} @param {any[]} args */
  function connect(...args) {
    // net.connect passes its normalised [options, callback] array as the first argument.
    const normalised = Array.isArray(args[0]) ? args[0] : args;
    const [first, ...rest] = normalised;
    /** @type {Record<string, any>} */
    let options;
    if (first !== null && typeof first === "object") options = { ...first };
    else if (typeof first === "string" && !/^\d+$/.test(first)) options = { path: first };
    else options = { port: first, host: typeof rest[0] === "string" ? rest.shift() : undefined };
    const cb = rest.find((x) => typeof x === "function");
    // Refusals surface like any connection error: asynchronously, on the socket.
    const fail = (/** @type {Error} */ err) => {
      process.nextTick(() => this.destroy(err));
      return this;
    };
    // As Node decides: a truthy `path` is a unix socket (http agents pass `path: null`).
    if (options.path) return fail(refused("a unix socket"));
    const port = Number(options.port);
    if (!Number.isInteger(port) || port < 1 || port > 65535) {
      return fail(
        Object.assign(new RangeError(`invalid port ${String(options.port)}`), {
          code: "ERR_SOCKET_BAD_PORT",
        }),
      );
    }
    const host = String(options.host || "localhost").replace(/^\[(.*)\]$/, "$1");
    if (cb) this.once("connect", cb);
    // Writes made meanwhile wait for `connect`, as they do during a DNS lookup.
    this.connecting = true;
    egress("OPEN", host, port, (err, tunnel) => {
      if (this.destroyed) {
        // Given up meanwhile: claim the tunnel and close it, so the proxy frees it at once.
        if (tunnel) {
          const claim = new net.Socket();
          claim.on("error", () => undefined);
          original.call(claim, { path: tunnel }, () => claim.destroy());
        }
        return;
      }
      if (err || !tunnel) {
        this.connecting = false;
        this.destroy(err ?? new Error("no tunnel"));
        return;
      }
      original.call(this, { path: tunnel });
    });
    return this;
  }

  Object.defineProperty(net.Socket.prototype, "connect", {
    value: connect,
    writable: false,
    configurable: false,
  });
}

/**
 * tls.connect makes its own socket, which can only connect over TCP; so the TCP connection is
 * opened through the proxy first and TLS is started on it.
 */
function installTls() {
  const original = tls.connect;
  /** @param {any[]} args */
  function connect(...args) {
    /** @type {Record<string, any>} */
    let options;
    const cb = args.find((x) => typeof x === "function");
    const plain = args.filter((x) => typeof x !== "function");
    if (plain[0] !== null && typeof plain[0] === "object") options = { ...plain[0] };
    else {
      options = { port: plain[0] };
      if (typeof plain[1] === "string") options.host = plain[1];
      const extra = plain.find((x, i) => i > 0 && x !== null && typeof x === "object");
      if (extra) options = { ...extra, ...options };
    }
    if (options.socket) return cb ? original.call(tls, options, cb) : original.call(tls, options);
    const host = String(options.host || "localhost");
    const socket = options.path
      ? net.connect({ path: options.path })
      : net.connect({ host, port: options.port });
    // A failure of the TCP step is the TLS socket's error too.
    const secure = original.call(
      tls,
      { ...options, socket, host, servername: options.servername ?? (net.isIP(host) ? undefined : host) },
      cb,
    );
    socket.once("error", (err) => secure.destroy(err));
    return secure;
  }
  Object.defineProperty(tls, "connect", {
    value: connect,
    writable: false,
    configurable: false,
    enumerable: true,
  });
}

/**
 * UDP. Namespaces mode (`udp: false`): every send and connect is refused. Process mode: `send`
 * to an address and `connect` have the egress proxy resolve the address and judge it (dgram's
 * default is the loopback address; no port is blocked, the database listens on TCP only), and
 * go to the address it answered. A send on a connected socket goes where its guarded `connect` went.
 * @param {GuardConfig} config @param {ReturnType<typeof createEgressClient>} egress
 */
function installUdp(config, egress) {
  const proto = dgram.Socket.prototype;
  const originalSend = proto.send;
  const originalConnect = proto.connect;

  /**
   * Resolves and checks `address` through the proxy: calls `ok(ip)` or `fail(err)`.
   * @param {import("node:dgram").Socket} socket @param {unknown} address @param {number} port
   * @param {(ip: string) => void} ok @param {(err: Error) => void} fail
   */
  const check = (socket, address, port, ok, fail) => {
    const family = socket.type === "udp6" ? 6 : 4;
    const host = typeof address === "string" && address !== "" ? address : family === 6 ? "::1" : "127.0.0.1";
    if (!config.udp)
      return process.nextTick(fail, refused(`${host}:${port} over UDP`, "this server carries TCP only"));
    egress(
      "CHECK",
      host,
      port,
      (err, ip) => {
        if (err || !ip) return fail(udpError(err));
        ok(ip);
      },
      family,
    );
  };

  /** @this {import("node:dgram").Socket} @param {any[]} args */
  function send(...args) {
    let connected = true;
    try {
      this.remoteAddress();
    } catch {
      connected = false;
    }
    if (connected) return originalSend.apply(this, /** @type {any} */ (args));
    // dgram's own forms: (msg, offset, length, port[, address][, cb]) or (msg, port[, address][, cb]).
    const long = Boolean(args[4]) || (Boolean(args[3]) && typeof args[3] !== "function");
    const at = long ? 4 : 2;
    if (typeof args[at] === "function") args.splice(at, 0, undefined);
    const port = Number(args[at - 1]);
    const callback = typeof args[at + 1] === "function" ? args[at + 1] : undefined;
    const fail = (/** @type {Error} */ err) => (callback ? callback(err) : this.emit("error", err));
    check(
      this,
      args[at],
      port,
      (ip) => {
        args[at] = ip;
        // The socket may have closed meanwhile: dgram then throws, which belongs to the caller.
        try {
          originalSend.apply(this, /** @type {any} */ (args));
        } catch (err) {
          fail(/** @type {Error} */ (err));
        }
      },
      fail,
    );
  }

  /** @this {import("node:dgram").Socket} @param {number} port @param {any[]} rest */
  function connect(port, ...rest) {
    const address = typeof rest[0] === "function" ? undefined : rest[0];
    const callback = rest.find((x) => typeof x === "function");
    // As dgram reports a failed connect: to the callback if there is one, else as an error event.
    const fail = (/** @type {Error} */ err) => (callback ? callback(err) : this.emit("error", err));
    check(
      this,
      address,
      Number(port),
      (ip) => {
        try {
          originalConnect.call(this, port, ip, callback);
        } catch (err) {
          fail(/** @type {Error} */ (err));
        }
      },
      fail,
    );
  }

  Object.defineProperty(proto, "send", { value: send, writable: false, configurable: false });
  Object.defineProperty(proto, "connect", { value: connect, writable: false, configurable: false });
}

/**
 * Refuses choosing DNS servers (see the header): on the module objects, both Resolver classes,
 * their shared base (where the method is defined) and the native channel under them (reachable
 * as `resolver._handle`). Synchronous, as setServers is: the address policy lives in the
 * server, so a server could not be checked here; no component is known to need one.
 */
function installDns() {
  const setServers = function setServers() {
    throw refused("DNS servers of its own choosing", "queries go to the host's resolvers only");
  };
  const targets = [
    dns,
    dns.promises,
    dns.Resolver.prototype,
    dns.promises.Resolver.prototype,
    Object.getPrototypeOf(dns.Resolver.prototype),
    Object.getPrototypeOf(dns.promises.Resolver.prototype),
    Object.getPrototypeOf(/** @type {any} */ (new dns.Resolver())._handle),
  ];
  for (const target of new Set(targets)) {
    Object.defineProperty(target, "setServers", { value: setServers, writable: false, configurable: false, enumerable: true });
  }
}

/** The proxy's refusal, said of UDP. @param {Error | null | undefined} err */
function udpError(err) {
  const e = err ?? new Error("no address");
  if (/** @type {any} */ (e).code === "EACCES")
    e.message = e.message.replace(/ is not allowed/, " over UDP is not allowed");
  return e;
}

module.exports = { install };
