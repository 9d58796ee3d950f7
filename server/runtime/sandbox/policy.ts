/** The sandbox's network policy, from the configuration. */
import type { Config } from "../../config.js";
import type { NetworkPolicy } from "./process.js";

export function networkPolicyFor(config: Pick<Config, "databaseUrl" | "sandbox">): NetworkPolicy {
  const blockedPorts: number[] = [];
  if (config.databaseUrl) blockedPorts.push(Number(new URL(config.databaseUrl).port || 5432));
  return { allowPrivate: config.sandbox.allowPrivateNetwork, blockedPorts };
}
