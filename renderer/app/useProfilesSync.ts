/**
 * Keeps the profile list fresh from the host's `onProfilesChanged` pushes, and drops every
 * cached server answer when the current profile changes (data of one connection never shows
 * under another).
 */
import { useQueryClient } from "@tanstack/react-query";
import { useEffect, useRef } from "react";
import type { Profile } from "../../shared/bridge.js";
import { getBridge } from "../state/bridge.js";
import { keys, resetForProfileSwitch, useProfiles } from "../state/queries.js";
import { navigate, parseRoute } from "./router.js";

export function useProfilesSync() {
  const qc = useQueryClient();
  const profiles = useProfiles();
  const current = profiles.data?.find((p) => p.current) ?? null;

  useEffect(() => {
    let bridge;
    try {
      bridge = getBridge();
    } catch {
      return;
    }
    return bridge.onProfilesChanged((list: Profile[]) => qc.setQueryData(keys.profiles, list));
  }, [qc]);

  // Identity of the connection (which profile, at which address) and whether it is usable.
  const connection = current ? `${current.id}|${current.baseUrl}` : null;
  const status = current?.status ?? null;
  const last = useRef<{ connection: string | null; status: string | null } | null>(null);
  useEffect(() => {
    const before = last.current;
    last.current = { connection, status };
    // The first profile list (at start) is not a switch: nothing was loaded from another connection.
    if (before === null || before.connection === null) return;
    const switched = before.connection !== connection;
    // Becoming usable (the local server started, a new key was set, perhaps another user's) also
    // starts afresh. Turning "refused" or "failed" does not: the views already show that answer.
    if (switched || (before.status !== status && status === "ready")) void resetForProfileSwitch(qc);
    // Another connection has other ids: drop the selected item, keep the view.
    const profileOf = (k: string | null) => k?.split("|")[0] ?? null;
    if (switched && profileOf(before.connection) !== profileOf(connection)) {
      const { view } = parseRoute(window.location.hash);
      navigate(view);
    }
  }, [connection, status, qc]);

  return { profiles, current };
}
