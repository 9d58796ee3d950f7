/**
 * The databases the API suite runs on: always the embedded SQLite; PostgreSQL too when
 * HEADWATER_TEST_DATABASE_URL is set (CI sets it). Each test server gets a fresh database:
 * a temp dir for SQLite, `CREATE DATABASE hw_<random>` for PostgreSQL (dropped at stop).
 *
 *   describe.each(testDatabases())("users on $name", (db) => { ... startServer({ db }) ... });
 */
import crypto from "node:crypto";
import pg from "pg";

export interface TestDatabase {
  name: "sqlite" | "postgres";
  /** A fresh, empty database: the URL to give the server (undefined = SQLite) and its cleanup. */
  create(): Promise<FreshDatabase>;
}

export interface FreshDatabase {
  databaseUrl: string | undefined;
  drop(): Promise<void>;
}

/**
 * The secrets key of a test PostgreSQL database: the same for every server on that database
 * (instances sharing it must share the key), made from its URL so that nothing has to carry it.
 */
export function testSecretsKey(databaseUrl: string): string {
  return crypto.createHash("sha256").update(`headwater test secrets key\0${databaseUrl}`).digest("base64");
}

/** The variables a server on `databaseUrl` needs (none for SQLite). */
export function databaseEnv(databaseUrl: string | undefined): Record<string, string> {
  return databaseUrl ? { HEADWATER_DATABASE_URL: databaseUrl, HEADWATER_SECRETS_KEY: testSecretsKey(databaseUrl) } : {};
}

const sqlite: TestDatabase = {
  name: "sqlite",
  create: async () => ({ databaseUrl: undefined, drop: async () => undefined }),
};

function postgres(adminUrl: string): TestDatabase {
  return {
    name: "postgres",
    create: async () => {
      const name = `hw_${crypto.randomBytes(6).toString("hex")}`;
      await withClient(adminUrl, (c) => c.query(`CREATE DATABASE ${name}`));
      const url = new URL(adminUrl);
      url.pathname = `/${name}`;
      return {
        databaseUrl: url.toString(),
        // FORCE ends connections a crashed test left behind (PostgreSQL 13+).
        // pg's pool.end() resolves before its sockets close: give those backends up to 2 s to
        // leave, so FORCE does not kill one mid-goodbye (an unhandled 57P01 in the test run).
        drop: () =>
          withClient(adminUrl, async (c) => {
            for (let i = 0; i < 40; i++) {
              const r = await c.query("SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1", [
                name,
              ]);
              if ((r.rows[0] as { n: number }).n === 0) break;
              await new Promise((res) => setTimeout(res, 50));
            }
            await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
          }),
      };
    },
  };
}

async function withClient<T>(url: string, fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

let warned = false;

export function testDatabases(): TestDatabase[] {
  const url = process.env.HEADWATER_TEST_DATABASE_URL;
  if (!url) {
    if (!warned) {
      warned = true;
      console.warn(
        "HEADWATER_TEST_DATABASE_URL is not set: the PostgreSQL runs of the API suite are skipped.",
      );
    }
    return [sqlite];
  }
  return [sqlite, postgres(url)];
}
