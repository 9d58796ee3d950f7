/**
 * Connection profiles: the built-in "Local" profile (the embedded server) and remote ones
 * (base URL + key). Settings hold the profiles and the selection; keys live in the vault.
 * A profile given by the environment (HEADWATER_API_URL + HEADWATER_API_KEY) exists only in
 * memory for this launch and is selected; nothing about it is written to disk.
 */
import crypto from "node:crypto";
import type { RemoteProfileInput } from "../../shared/bridge.js";
import { HostError } from "./errors.js";
import { MemoryKeyVault, type KeyVault } from "./key-vault.js";
import type { Settings, SettingsStore, StoredProfile } from "./settings.js";

export const LOCAL_PROFILE_ID = "local";
export const ENV_PROFILE_ID = "env";

export interface EnvProfile {
  baseUrl: string;
  apiKey: string;
}

export class Profiles {
  private readonly envVault = new MemoryKeyVault();
  private readonly envProfile: StoredProfile | undefined;
  private currentOverride: string | undefined;

  constructor(
    private readonly settings: SettingsStore,
    private readonly vault: KeyVault,
    env?: EnvProfile,
  ) {
    const s = settings.read();
    if (!s.profiles.some((p) => p.id === LOCAL_PROFILE_ID)) {
      s.profiles.unshift({ id: LOCAL_PROFILE_ID, name: "Local", kind: "local", baseUrl: "" });
      s.currentProfileId ??= LOCAL_PROFILE_ID;
      settings.write(s);
    }
    if (env) {
      this.envProfile = { id: ENV_PROFILE_ID, name: hostName(env.baseUrl), kind: "remote", baseUrl: normalizeBaseUrl(env.baseUrl) };
      this.envVault.set(ENV_PROFILE_ID, env.apiKey);
      this.currentOverride = ENV_PROFILE_ID;
    }
  }

  list(): StoredProfile[] {
    const stored = this.settings.read().profiles;
    return this.envProfile ? [...stored, this.envProfile] : stored;
  }

  get(id: string): StoredProfile {
    const p = this.list().find((x) => x.id === id);
    if (!p) throw new HostError(404, "not_found", `No connection named ${id}.`);
    return p;
  }

  currentId(): string | null {
    const id = this.currentOverride ?? this.settings.read().currentProfileId;
    return id && this.list().some((p) => p.id === id) ? id : null;
  }

  current(): StoredProfile | undefined {
    const id = this.currentId();
    return id ? this.get(id) : undefined;
  }

  addRemote(input: RemoteProfileInput): StoredProfile {
    const profile: StoredProfile = {
      id: `r_${crypto.randomBytes(6).toString("hex")}`,
      name: input.name.trim(),
      kind: "remote",
      baseUrl: normalizeBaseUrl(input.baseUrl),
    };
    this.vault.set(profile.id, input.apiKey.trim());
    this.update((s) => {
      s.profiles.push(profile);
    });
    this.select(profile.id);
    return profile;
  }

  select(id: string): StoredProfile {
    const p = this.get(id);
    if (id === ENV_PROFILE_ID) {
      this.currentOverride = id;
    } else {
      this.currentOverride = undefined;
      this.update((s) => {
        s.currentProfileId = id;
      });
    }
    return p;
  }

  remove(id: string): void {
    const p = this.get(id);
    if (p.kind === "local") throw new HostError(400, "invalid_argument", "The local connection cannot be removed.");
    if (id === ENV_PROFILE_ID) throw new HostError(400, "invalid_argument", "This connection comes from HEADWATER_API_URL and cannot be removed here.");
    const wasCurrent = this.currentId() === id;
    this.vault.delete(id);
    this.update((s) => {
      s.profiles = s.profiles.filter((x) => x.id !== id);
      if (s.currentProfileId === id) s.currentProfileId = LOCAL_PROFILE_ID;
    });
    if (wasCurrent) this.currentOverride = undefined;
  }

  key(id: string): string | undefined {
    return id === ENV_PROFILE_ID ? this.envVault.get(id) : this.vault.get(id);
  }

  setKey(id: string, key: string): void {
    this.get(id);
    if (id === ENV_PROFILE_ID) this.envVault.set(id, key);
    else this.vault.set(id, key);
  }

  /** Updates the local profile's base URL once its server listens (kept for display). */
  setLocalBaseUrl(baseUrl: string): void {
    this.update((s) => {
      const local = s.profiles.find((p) => p.id === LOCAL_PROFILE_ID);
      if (local) local.baseUrl = baseUrl;
    });
  }

  readSettings(): Settings {
    return this.settings.read();
  }

  update(change: (s: Settings) => void): void {
    const s = this.settings.read();
    change(s);
    this.settings.write(s);
  }
}

/** Trims trailing slashes; a bare host (`https://example.com`) gets `/v1`. */
export function normalizeBaseUrl(url: string): string {
  const u = new URL(url.trim());
  let p = u.pathname.replace(/\/+$/, "");
  if (p === "") p = "/v1";
  return `${u.origin}${p}`;
}

function hostName(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return "Remote";
  }
}
