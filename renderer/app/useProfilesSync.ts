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
  const lastKey = useRef<string | null>(null);

  useEffect(() => {
    let bridge;
    try {
      bridge = getBridge();
    } catch {
      return;
    }
    return bridge.onProfilesChanged((list: Profile[]) => qc.setQueryData(keys.profiles, list));
  }, [qc]);

  // Identity of the connection: which profile, and whether it is usable yet.
  const connectionKey = current ? `${current.id}|${current.status}|${current.baseUrl}` : null;
  useEffect(() => {
    const before = lastKey.current;
    if (before !== null && before !== connectionKey) {
      resetForProfileSwitch(qc);
      // Another connection has other ids: drop the selected item, keep the view.
      const profileOf = (k: string | null) => k?.split("|")[0] ?? null;
      if (profileOf(before) !== profileOf(connectionKey)) {
        const { view } = parseRoute(window.location.hash);
        navigate(view);
      }
    }
    lastKey.current = connectionKey;
  }, [connectionKey, qc]);

  return { profiles, current };
}
