/** A real SQLite database in a temp dir, for module tests without HTTP. */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { openDb, type OpenedDb } from "../../server/store/db.js";

export async function tempDb(): Promise<OpenedDb & { dir: string }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "hw-events-"));
  const opened = await openDb({ dataDir: dir });
  return {
    ...opened,
    dir,
    close: async () => {
      await opened.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
