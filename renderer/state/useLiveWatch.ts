/**
 * Watches one emitter channel: resets the live feed, asks the host to `watch`, applies its
 * batches (one store update per batch) and reports the connection state; loads the newest page
 * over the bridge meanwhile. Unwatches on unmount or when the stream changes.
 */
import { useCallback, useEffect, useState } from "react";
import type { STREAM_CHANNELS, StreamBatch, StreamStateUpdate } from "../../shared/bridge.js";
import type { EventSummary } from "../../shared/resources/index.js";
import { call, getBridge } from "./bridge.js";
import { useLiveFeed } from "./liveFeed.js";

export interface LiveWatch {
  key: string;
  /** Latest connection state from the host, or null before the first. */
  state: StreamStateUpdate | null;
  /** Failure to start the watch or to load the first page. */
  error: unknown;
  loading: boolean;
  /** Reloads the newest page and restarts the watch. */
  restart: () => void;
}

interface Status {
  generation: number;
  state: StreamStateUpdate | null;
  error: unknown;
  loading: boolean;
}
const INITIAL: Status = { generation: 0, state: null, error: null, loading: true };

export type Channel = (typeof STREAM_CHANNELS)[number];

export function streamKey(emitterId: string, channel: string): string {
  return `${emitterId}|${channel}`;
}

export function useLiveWatch(
  emitterId: string,
  channel: Channel,
  loadInitial: () => Promise<EventSummary[]>,
): LiveWatch {
  const key = streamKey(emitterId, channel);
  const [status, setStatus] = useState<Status>(INITIAL);
  const generation = status.generation;

  useEffect(() => {
    let cancelled = false;
    let watchId: string | null = null;
    const update = (patch: Partial<Status>) => {
      if (!cancelled) setStatus((s) => ({ ...s, ...patch }));
    };
    let bridge;
    try {
      bridge = getBridge();
    } catch (err) {
      queueMicrotask(() => update({ error: err, loading: false }));
      return () => void (cancelled = true);
    }
    useLiveFeed.getState().reset(key);
    // Batches can race the `watch` answer: keep them until the id is known.
    const early: StreamBatch[] = [];
    const offBatch = bridge.onStreamBatch((b) => {
      if (cancelled) return;
      if (watchId === null) early.push(b);
      else if (b.watchId === watchId) useLiveFeed.getState().applyBatch(key, b.events);
    });
    // States can race it too: keep the latest per watch id.
    const earlyStates = new Map<string, StreamStateUpdate>();
    const offState = bridge.onStreamState((u) => {
      if (watchId === null) earlyStates.set(u.watchId, u);
      else if (u.watchId === watchId) update({ state: u });
    });
    call("watch", emitterId, channel).then(
      (id) => {
        if (cancelled) {
          void call("unwatch", id).catch(() => undefined);
          return;
        }
        watchId = id;
        for (const b of early.splice(0))
          if (b.watchId === id) useLiveFeed.getState().applyBatch(key, b.events);
        const state = earlyStates.get(id);
        if (state) update({ state });
        earlyStates.clear();
      },
      (err: unknown) => update({ error: err }),
    );
    loadInitial().then(
      (rows) => {
        if (cancelled) return;
        useLiveFeed.getState().load(key, rows);
        update({ loading: false });
      },
      (err: unknown) => update({ error: err, loading: false }),
    );
    return () => {
      cancelled = true;
      offBatch();
      offState();
      if (watchId !== null) void call("unwatch", watchId).catch(() => undefined);
    };
    // loadInitial is recreated each render; the stream key and generation decide reloads.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [key, generation]);

  const restart = useCallback(() => setStatus((s) => ({ ...INITIAL, generation: s.generation + 1 })), []);
  const { state, error, loading } = status;
  return { key, state, error, loading, restart };
}
