/** Types of address-policy.cjs (plain CommonJS, shared with the sandbox worker). */
export interface AddressPolicy {
  /** Allow loopback, private, link-local, CGNAT and unique-local addresses. */
  allowPrivate: boolean;
  /** Ports refused on those addresses even when they are allowed (the database's). */
  blockedPorts: number[];
}
export type Verdict = { allowed: true } | { allowed: false; reason: string };
export declare function checkAddress(address: string, port: number, policy: AddressPolicy): Verdict;
export declare function parseAddress(
  text: string,
): { kind(): "ipv4" | "ipv6"; toString(): string } | undefined;
