/**
 * The live feed's state in words: a pill (Live, Paused, Reconnecting in 3 s, Inactive: paused)
 * and, when the feed failed or was refused, what happened and how to go on.
 */
import type { StreamStateUpdate } from "../../../shared/bridge.js";
import type { useLiveWatch } from "../../state/useLiveWatch.js";
import { ErrorNote } from "../../ui/ErrorNote.js";
import type { EmitterKind } from "./EventDetail.js";

export function StreamProblem({ watch }: { watch: ReturnType<typeof useLiveWatch> }) {
  if (watch.error)
    return <ErrorNote error={watch.error} title="Could not load events" onRetry={watch.restart} />;
  const s = watch.state;
  if (s?.state === "unauthorized") {
    return (
      <div role="alert" className="error-note">
        <div className="error-text">
          <strong>The live feed was refused</strong>
          <span>
            {s.message ?? "The server refused this connection's API key."} Check the key in Account →
            Connections.
          </span>
        </div>
        <div className="error-actions">
          <button type="button" className="btn small" onClick={watch.restart}>
            Try again
          </button>
        </div>
      </div>
    );
  }
  if (s?.state === "closed" && s.message) {
    return (
      <div role="alert" className="error-note">
        <div className="error-text">
          <strong>The live feed stopped</strong>
          <span>{s.message}</span>
        </div>
        <div className="error-actions">
          <button type="button" className="btn small" onClick={watch.restart}>
            Reconnect
          </button>
        </div>
      </div>
    );
  }
  return null;
}

export function ConnectionPill(props: {
  state: StreamStateUpdate | null;
  paused: boolean;
  inactive?: boolean;
  kind?: EmitterKind;
}) {
  const { state, paused, inactive } = props;
  const s = state?.state ?? "connecting";
  // Connected, but nothing will come: an inactive source or workflow emits nothing.
  if (inactive && s === "open") {
    return (
      <span
        role="status"
        className="pill conn-open paused"
        title={`This ${props.kind ?? "source"} is inactive: it emits nothing until it is activated`}
      >
        <span className="dot" aria-hidden="true" />
        Inactive: paused
      </span>
    );
  }
  const text =
    s === "open"
      ? paused
        ? "Paused"
        : "Live"
      : s === "connecting"
        ? "Connecting…"
        : s === "reconnecting"
          ? `Reconnecting${state?.retryInMs ? ` in ${Math.ceil(state.retryInMs / 1000)} s` : "…"}`
          : s === "unauthorized"
            ? "Key refused"
            : "Disconnected";
  return (
    <span role="status" className={`pill conn-${s}${paused ? " paused" : ""}`} title={state?.message ?? text}>
      <span className="dot" aria-hidden="true" />
      <span className="pill-text">{text}</span>
    </span>
  );
}
