/**
 * The colour theme. The user picks System, Light or Dark (ThemeSwitch); the host keeps the choice
 * in its settings (`getTheme` / `setTheme`: electron-store, or web mode's settings file), like the
 * connections. What the page shows is the choice resolved against the OS's prefers-color-scheme,
 * set as `<html data-theme="light|dark">`: base.css defines the colours of each, so one attribute
 * switches every token (and the browser's own controls, through color-scheme).
 */
import { useEffect } from "react";
import { create } from "zustand";
import type { ThemePreference } from "../../shared/bridge.js";
import { call } from "../state/bridge.js";

export type ResolvedTheme = "light" | "dark";

const DARK_QUERY = "(prefers-color-scheme: dark)";

function systemTheme(): ResolvedTheme {
  return typeof window.matchMedia === "function" && window.matchMedia(DARK_QUERY).matches ? "dark" : "light";
}

export function resolveTheme(preference: ThemePreference, system: ResolvedTheme): ResolvedTheme {
  return preference === "system" ? system : preference;
}

interface ThemeState {
  preference: ThemePreference;
  resolved: ResolvedTheme;
  /** The host could not keep the last choice (shown under the switch). */
  error: unknown;
  /** Applies a choice at once and asks the host to keep it; a refusal puts the previous one back. */
  choose: (preference: ThemePreference) => Promise<void>;
}

function apply(preference: ThemePreference): ResolvedTheme {
  const resolved = resolveTheme(preference, systemTheme());
  document.documentElement.dataset.theme = resolved;
  return resolved;
}

/** Set once the user picks a theme: the host's answer to the first read then no longer applies. */
let chosen = false;

export const useTheme = create<ThemeState>()((set, get) => ({
  preference: "system",
  resolved: "light",
  error: null,
  choose: async (preference) => {
    chosen = true;
    const previous = get().preference;
    set({ preference, resolved: apply(preference), error: null });
    try {
      await call("setTheme", preference);
    } catch (error) {
      set({ preference: previous, resolved: apply(previous), error });
    }
  },
}));

/**
 * Applies the system's theme before the first paint and follows it while the choice is
 * "system" (main.tsx calls it once, before rendering).
 */
export function startTheme(): void {
  useTheme.setState({ resolved: apply(useTheme.getState().preference) });
  if (typeof window.matchMedia !== "function") return;
  window.matchMedia(DARK_QUERY).addEventListener("change", () => {
    useTheme.setState({ resolved: apply(useTheme.getState().preference) });
  });
}

/** Reads the kept choice from the host once the shell mounts. */
export function useStoredTheme(): void {
  useEffect(() => {
    let cancelled = false;
    call("getTheme")
      .then((preference) => {
        if (!cancelled && !chosen) useTheme.setState({ preference, resolved: apply(preference) });
      })
      // An older host without the setting: the system's theme stays.
      .catch(() => undefined);
    return () => {
      cancelled = true;
    };
  }, []);
}
