/**
 * electron-store backed implementations of the core's settings and key-record stores. Keys are
 * stored only as safeStorage ciphertext (see core/key-vault.ts).
 */
import Store from "electron-store";
import type { RecordStore } from "../core/key-vault.js";
import { parseSettings, type Settings, type SettingsStore } from "../core/settings.js";

export class ElectronSettingsStore implements SettingsStore {
  private readonly store = new Store<{ settings?: unknown }>({ name: "settings" });
  read(): Settings {
    return parseSettings(this.store.get("settings"));
  }
  write(settings: Settings): void {
    this.store.set("settings", settings);
  }
}

export class ElectronRecordStore implements RecordStore {
  private readonly store = new Store<Record<string, string>>({ name: "keys" });
  get(key: string): string | undefined {
    const v = this.store.get(key);
    return typeof v === "string" ? v : undefined;
  }
  set(key: string, value: string): void {
    this.store.set(key, value);
  }
  delete(key: string): void {
    this.store.delete(key);
  }
}
