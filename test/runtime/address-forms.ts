/** The address forms the isolation tests try: one table for the server's fetcher and the sandbox. */

/** Every textual form of a loopback address: IPv4 short, decimal, hex, octal; IPv6 mapped, SIIT, NAT64, 6to4, compatible; unspecified. */
export const LOOPBACK_LITERALS = [
  "127.0.0.1",
  "127.1",
  "2130706433",
  "0x7f000001",
  "0177.0.0.1",
  "::1",
  "::ffff:127.0.0.1",
  "::ffff:7f00:1",
  "::ffff:0:7f00:1",
  "64:ff9b::7f00:1",
  "2002:7f00:1::",
  "::7f00:1",
  "0.0.0.0",
  "::",
];
/** Names of this machine (`localhost.` does not resolve here: refused either way). */
export const LOOPBACK_NAMES = ["localhost", "localhost."];
/** Names a test double for DNS answers with loopback addresses (the egress proxy's resolver in tests). */
export const TEST_DOUBLE_NAMES: Record<string, string> = {
  "loopback.test": "127.0.0.1",
  "mapped.test": "::ffff:7f00:1",
};
export const LOOPBACK_FORMS = [...LOOPBACK_LITERALS, ...LOOPBACK_NAMES, ...Object.keys(TEST_DOUBLE_NAMES)];

/** The cloud metadata address (also as mapped IPv6), and the other refused ranges. */
export const OTHER_FORMS = [
  "169.254.169.254",
  "::ffff:a9fe:a9fe",
  "10.1.2.3",
  "172.16.0.1",
  "192.168.1.1",
  "100.64.0.1",
  "fe80::1",
  "fd00::1",
  "224.0.0.1",
  "ff02::1",
  "255.255.255.255",
  "240.0.0.1",
  "2001::1",
];

/** As a URL's host. */
export const urlHost = (host: string) => (host.includes(":") ? `[${host}]` : host);
