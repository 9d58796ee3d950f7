/**
 * The host's settings: profiles (without keys: those are in the key vault), the selected
 * profile, the local server's remembered port, and the dashboard's colour theme. Electron main keeps them in electron-store;
 * web mode in a JSON file. Both go through `SettingsStore`.
 */
import fs from "node:fs";
import path from "node:path";
import { TestRequestInput, ThemePreference } from "../../shared/bridge.js";
import * as z from "../../shared/zod.js";

export const StoredProfile = z.object({
  id: z.string().check(z.minLength(1)),
  name: z.string().check(z.minLength(1)),
  kind: z.enum(["local", "remote"]),
  /** For remote profiles, the API base ending in `/v1`. Local profiles learn it at launch. */
  baseUrl: z.string(),
});
export type StoredProfile = z.infer<typeof StoredProfile>;

export const Settings = z.object({
  profiles: z._default(z.array(StoredProfile), []),
  currentProfileId: z._default(z.nullable(z.string()), null),
  /** The port the local server used last time, reused when free so endpoint URLs stay the same. */
  localServerPort: z._default(z.nullable(z.number().check(z.int(), z.gte(1), z.lte(65535))), null),
  /** Set once the local server's example sources were created (never created twice). */
  localExamplesCreated: z._default(z.boolean(), false),
  /**
   * "Send test event": the last few requests per `<profile id>:<emitter id>`, newest first, with
   * no secret-looking header (electron/core/test-requests.ts).
   */
  /** The dashboard's colour theme; an unknown value (a newer build's) reads as "system". */
  theme: z.catch(z._default(ThemePreference, "system"), "system"),
  testRequests: z._default(
    z.record(z.string(), z.array(z.extend(TestRequestInput, { sentAt: z.number() }))),
    {},
  ),
});
export type Settings = z.infer<typeof Settings>;

export const defaultSettings = (): Settings => Settings.parse({});

export interface SettingsStore {
  read(): Settings;
  write(settings: Settings): void;
}

/** Parses whatever was stored; anything unreadable gives the defaults rather than a crash. */
export function parseSettings(raw: unknown): Settings {
  const parsed = Settings.safeParse(raw ?? {});
  return parsed.success ? parsed.data : defaultSettings();
}

export class MemorySettingsStore implements SettingsStore {
  private settings: Settings;
  constructor(initial?: Partial<Settings>) {
    this.settings = parseSettings(initial);
  }
  read() {
    return structuredClone(this.settings);
  }
  write(s: Settings) {
    this.settings = structuredClone(s);
  }
}

export class JsonFileSettingsStore implements SettingsStore {
  constructor(private readonly file: string) {}

  read(): Settings {
    try {
      return parseSettings(JSON.parse(fs.readFileSync(this.file, "utf8")));
    } catch {
      return defaultSettings();
    }
  }

  write(settings: Settings): void {
    fs.mkdirSync(path.dirname(this.file), { recursive: true, mode: 0o700 });
    const tmp = `${this.file}.${process.pid}.tmp`;
    fs.writeFileSync(tmp, JSON.stringify(settings, null, 2), { mode: 0o600 });
    fs.renameSync(tmp, this.file);
  }
}
