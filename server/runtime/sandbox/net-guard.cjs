// @ts-check
/* eslint-disable @typescript-eslint/no-require-imports -- plain CommonJS by design: see worker.cjs */
/**
 * Inside the sandbox: outbound network policy. Node 20's permission model does not cover the
 * network, and components need it (APIs, feeds), so every TCP connection (net, tls, http,
 * https, fetch all end in net.Socket.prototype.connect) is checked here before component code
 * is loaded:
 * - Unix sockets are refused (a local PostgreSQL socket, the Docker socket...).
 * - Unless `allowPrivate`, loopback, private, link-local (cloud metadata), CGNAT and unspecified
 *   addresses are refused, by literal address and after DNS resolution (so a name that
 *   resolves to 127.0.0.1 is refused too).
 * - The server's database port on a private address is always refused (`blockedPorts`).
 * UDP (dgram) sends and connects get the same address rules, checked on the address each datagram
 * goes to (a name is resolved here, and the datagram goes to the address that was checked).
 * The guard is installed as a non-writable, non-configurable property, and the original
 * function stays in this closure: component code cannot reach or restore it (process.binding
 * is denied by the permission model).
 */
"use strict";
const net = require("node:net");
const dns = require("node:dns");
const dgram = require("node:dgram");

/** @param {string} ip */
function isPrivateAddress(ip) {
  let a = ip.toLowerCase();
  if (a.startsWith("::ffff:")) a = a.slice(7);
  if (net.isIPv4(a)) {
    const [p, q] = a.split(".").map(Number);
    return (
      p === 0 || p === 10 || p === 127 || (p === 100 && q >= 64 && q < 128) || (p === 169 && q === 254) ||
      (p === 172 && q >= 16 && q < 32) || (p === 192 && q === 168)
    );
  }
  if (net.isIPv6(a)) {
    return a === "::" || a === "::1" || /^f[cd]/.test(a) || /^fe[89ab]/.test(a);
  }
  return false;
}

/** @param {string} what */
function refused(what) {
  const err = new Error(`network access to ${what} is not allowed from a component`);
  /** @type {any} */ (err).code = "EACCES";
  return err;
}

/**
 * @param {{ allowPrivate: boolean, blockedPorts: number[] }} policy
 */
function install(policy) {
  const original = net.Socket.prototype.connect;
  /** @param {string} address @param {number} port */
  const denied = (address, port) =>
    isPrivateAddress(address) && (!policy.allowPrivate || policy.blockedPorts.includes(port));

  /** A DNS lookup that refuses denied addresses for this port. @param {number} port */
  const guardedLookup = (port) => (/** @type {string} */ hostname, /** @type {any} */ options, /** @type {any} */ callback) => {
    dns.lookup(hostname, options, (/** @type {any} */ err, /** @type {any} */ address, /** @type {any} */ family) => {
      if (err) return callback(err, address, family);
      const list = Array.isArray(address) ? address : [{ address, family }];
      const bad = list.find((/** @type {any} */ a) => denied(a.address, port));
      if (bad) return callback(refused(`${hostname} (${bad.address})`), address, family);
      callback(null, address, family);
    });
  };

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
    const host = options.host ?? "localhost";
    if (net.isIP(host)) {
      if (denied(host, port)) return fail(refused(`${host}:${port}`));
    } else {
      // A caller's own lookup could answer with any address: ours decides.
      options.lookup = guardedLookup(port);
    }
    return cb ? original.call(this, options, cb) : original.call(this, options);
  }

  Object.defineProperty(net.Socket.prototype, "connect", { value: connect, writable: false, configurable: false });
  installUdp(policy);
}

/**
 * UDP: `send` to an address and `connect` resolve the address here (dgram's default is the
 * loopback address), refuse a private one unless `allowPrivate` (the database listens on TCP
 * only, so `blockedPorts` does not apply), and pass the checked address on. A send on a connected
 * socket goes where its guarded `connect` went.
 * @param {{ allowPrivate: boolean }} policy
 */
function installUdp(policy) {
  const proto = dgram.Socket.prototype;
  const originalSend = proto.send;
  const originalConnect = proto.connect;

  /**
   * Resolves `address` for the socket's family and checks it: calls `ok(ip)` or `fail(err)`.
   * @param {import("node:dgram").Socket} socket @param {unknown} address @param {number} port
   * @param {(ip: string) => void} ok @param {(err: Error) => void} fail
   */
  const check = (socket, address, port, ok, fail) => {
    const family = socket.type === "udp6" ? 6 : 4;
    const host = typeof address === "string" && address !== "" ? address : family === 6 ? "::1" : "127.0.0.1";
    const decide = (/** @type {string} */ ip) => {
      if (isPrivateAddress(ip) && !policy.allowPrivate) return fail(refused(`${host === ip ? ip : `${host} (${ip})`}:${port} over UDP`));
      ok(ip);
    };
    if (net.isIP(host)) return process.nextTick(decide, host);
    dns.lookup(host, { family }, (err, ip) => (err ? fail(err) : decide(ip)));
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

module.exports = { install, isPrivateAddress };
