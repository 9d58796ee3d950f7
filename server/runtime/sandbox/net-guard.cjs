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
 * The guard is installed as a non-writable, non-configurable property, and the original
 * function stays in this closure: component code cannot reach or restore it (process.binding
 * is denied by the permission model).
 */
"use strict";
const net = require("node:net");
const dns = require("node:dns");

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
    if (options.path !== undefined) return fail(refused("a unix socket"));
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
}

module.exports = { install, isPrivateAddress };
