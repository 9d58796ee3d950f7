/**
 * What every command file shares, kept apart from program.ts (which imports the commands) so the
 * imports run one way: how a command function becomes a commander action, and the option parsers
 * (a bad value is a usage error naming the flag).
 */
import { InvalidArgumentError } from "commander";
import { parseEventId } from "../shared/ids.js";
import type { Context } from "./context.js";

export type CommandFn = (ctx: Context, args: string[], opts: Record<string, unknown>) => Promise<void>;
export type Act = (fn: CommandFn) => (...raw: unknown[]) => Promise<void>;

export function positiveInt(_flag: string) {
  return (value: string): number => {
    if (!/^\d+$/.test(value) || Number(value) < 1) throw new InvalidArgumentError("must be a whole number, at least 1.");
    return Number(value);
  };
}

export function nonNegativeInt(_flag: string) {
  return (value: string): number => {
    if (!/^\d+$/.test(value)) throw new InvalidArgumentError("must be a whole number, 0 or more.");
    return Number(value);
  };
}

/** An event id option (`--from`, `--to`). */
export function eventId(value: string): string {
  if (!parseEventId(value)) throw new InvalidArgumentError("not an event id (like 1700000000000-0).");
  return value;
}

/** Collects a repeatable option's values. */
export function collectRepeated(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}
