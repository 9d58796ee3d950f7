/** A date-time in the dashboard's one format (state/format.ts): relative when recent, exact on hover. */
import { absoluteTime, formatWhen } from "../state/format.js";

export function Time({ ms, prefix }: { ms: number; prefix?: string }) {
  return (
    <time dateTime={new Date(ms).toISOString()} title={absoluteTime(ms)}>
      {prefix}
      {formatWhen(ms)}
    </time>
  );
}
