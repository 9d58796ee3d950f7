// @ts-check
/* eslint-disable @typescript-eslint/no-require-imports -- plain CommonJS: the sandbox worker loads it too */
/**
 * The one address policy: which IP addresses code on behalf of a user may connect to. Used by
 * the server's `component_url` fetcher, by the egress proxy that carries the sandbox's TCP
 * connections, and by the sandbox's in-process UDP guard (process mode). It is CommonJS because
 * the sandbox worker, plain CommonJS under Node's permission model, loads it as it is.
 *
 * Addresses are parsed with `ipaddr.js` (every textual IPv4 form: dotted, short `127.1`, hex,
 * octal, a single 32-bit number; every IPv6 form, zone ids), never with string tests. Addresses
 * that carry an IPv4 address inside IPv6 (mapped `::ffff:0:0/96`, compatible `::/96`,
 * SIIT `::ffff:0:0:0/96`, NAT64 `64:ff9b::/96`, 6to4 `2002::/16`) are judged by the IPv4
 * address they carry. Local-use NAT64 (`64:ff9b:1::/48`) is always refused: where it carries the
 * IPv4 address depends on the prefix length its operator chose. Teredo (`2001::/32`) hides its
 * client address: refused.
 *
 * Only global unicast is allowed. "Local" ranges (unspecified, loopback, private, link-local
 * including the cloud metadata address, CGNAT, IPv6 unique-local) are allowed only when the
 * server allows private networks, and even then never on a blocked port (the database's).
 * Multicast, broadcast and reserved ranges are never allowed.
 */
"use strict";
const ipaddr = require("ipaddr.js");

/** Ranges allowed when private networks are (a feed on the LAN, tests). */
const LOCAL_RANGES = new Set([
  "unspecified",
  "loopback",
  "private",
  "linkLocal",
  "carrierGradeNat",
  "uniqueLocal",
]);
/** IPv6 ranges whose verdict is that of the IPv4 address they carry (of rfc6052 only 64:ff9b::/96: decidingRange refuses the /48). */
const EMBEDDING_RANGES = new Set(["ipv4Mapped", "rfc6145", "rfc6052", "6to4"]);

/**
 * Parses an address in any textual form (URL brackets and zone ids allowed). Undefined when it
 * is not an IP address (a host name).
 * @param {string} text
 * @returns {import("ipaddr.js").IPv4 | import("ipaddr.js").IPv6 | undefined}
 */
function parseAddress(text) {
  const bare = String(text).replace(/^\[(.*)\]$/, "$1");
  if (!ipaddr.isValid(bare)) return undefined;
  try {
    return ipaddr.parse(bare);
  } catch {
    return undefined;
  }
}

/**
 * The IPv4 address an IPv6 address carries, for the embedding ranges and IPv4-compatible.
 * @param {import("ipaddr.js").IPv6} v6
 * @returns {import("ipaddr.js").IPv4 | undefined}
 */
function embeddedIPv4(v6) {
  const range = v6.range();
  const bytes = v6.toByteArray();
  if (range === "6to4") return new ipaddr.IPv4(bytes.slice(2, 6));
  if (EMBEDDING_RANGES.has(range)) return new ipaddr.IPv4(bytes.slice(12, 16));
  // IPv4-compatible (::a.b.c.d, deprecated, but a stack may still route it): ipaddr.js calls it unicast.
  if (bytes.slice(0, 12).every((b) => b === 0)) return new ipaddr.IPv4(bytes.slice(12, 16));
  return undefined;
}

/**
 * The range that decides an address: `unicast`, one of LOCAL_RANGES, or another (never allowed).
 * @param {import("ipaddr.js").IPv4 | import("ipaddr.js").IPv6} addr
 * @returns {string}
 */
function decidingRange(addr) {
  if (addr.kind() === "ipv4") return addr.range();
  const v6 = /** @type {import("ipaddr.js").IPv6} */ (addr);
  const range = v6.range();
  if (range === "unspecified" || range === "loopback") return range;
  if (range === "rfc6052" && !(v6.toByteArray()[4] === 0 && v6.toByteArray()[5] === 0)) return "rfc6052";
  const inner = embeddedIPv4(v6);
  return inner ? inner.range() : range;
}

/**
 * @typedef {{ allowPrivate: boolean, blockedPorts: number[] }} AddressPolicy
 * @typedef {{ allowed: true } | { allowed: false, reason: string }} Verdict
 */

/**
 * Whether a connection to `address`:`port` is allowed. `address` must be an IP address (the
 * one actually connected to, after DNS); anything else is refused.
 * @param {string} address @param {number} port @param {AddressPolicy} policy
 * @returns {Verdict}
 */
function checkAddress(address, port, policy) {
  const addr = parseAddress(address);
  if (!addr) return { allowed: false, reason: "not an IP address" };
  const range = decidingRange(addr);
  if (range === "unicast") return { allowed: true };
  if (LOCAL_RANGES.has(range)) {
    if (!policy.allowPrivate) return { allowed: false, reason: `${describeRange(range)} address` };
    if (policy.blockedPorts.includes(port)) return { allowed: false, reason: "the database's port" };
    return { allowed: true };
  }
  return { allowed: false, reason: `${describeRange(range)} address` };
}

/** @param {string} range */
function describeRange(range) {
  /** @type {Record<string, string>} */
  const names = {
    unspecified: "unspecified",
    loopback: "loopback",
    private: "private",
    linkLocal: "link-local",
    carrierGradeNat: "CGNAT",
    uniqueLocal: "unique-local",
    multicast: "multicast",
    broadcast: "broadcast",
    teredo: "Teredo",
  };
  return names[range] ?? `reserved (${range})`;
}

module.exports = { checkAddress, parseAddress };
