/**
 * The test PostgreSQL as a user's database for the vendor's postgresql components, which always
 * connect with SSL (.ci/run turns SSL on): why it cannot be used here, a fresh database on it,
 * and the app's credentials for that database as a user types them.
 */
import crypto from "node:crypto";
import pg from "pg";

export const PG_URL = process.env.HEADWATER_TEST_DATABASE_URL;

/** Why the vendor's postgresql components cannot run against the test PostgreSQL, or undefined. */
export async function sslPostgresUnavailable(): Promise<string | undefined> {
  if (!PG_URL) return "HEADWATER_TEST_DATABASE_URL is not set";
  const c = new pg.Client({ connectionString: PG_URL });
  try {
    await c.connect();
    const r = await c.query<{ ssl: string }>("show ssl");
    return r.rows[0]?.ssl === "on" ? undefined : "the test PostgreSQL has SSL off (see .ci/run)";
  } catch (err) {
    return `the test PostgreSQL is not reachable: ${(err as Error).message}`;
  } finally {
    await c.end().catch(() => undefined);
  }
}

export interface UserDatabase {
  name: string;
  client: pg.Client;
  /** `{$auth}` of the vendor's postgresql app for this database. */
  auth(): { $auth: Record<string, unknown> };
  drop(): Promise<void>;
}

async function admin<T>(fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const c = new pg.Client({ connectionString: PG_URL });
  await c.connect();
  try {
    return await fn(c);
  } finally {
    await c.end();
  }
}

/** A fresh database on the test PostgreSQL, with a client connected to it. */
export async function userDatabase(prefix = "hw_user"): Promise<UserDatabase> {
  const name = `${prefix}_${crypto.randomBytes(5).toString("hex")}`;
  await admin((c) => c.query(`CREATE DATABASE ${name}`));
  const url = new URL(PG_URL!);
  url.pathname = `/${name}`;
  const client = new pg.Client({ connectionString: url.toString() });
  await client.connect();
  return {
    name,
    client,
    auth: () => {
      const u = new URL(PG_URL!);
      return {
        $auth: {
          host: u.hostname,
          port: Number(u.port || 5432),
          user: decodeURIComponent(u.username),
          password: decodeURIComponent(u.password),
          database: name,
          ssl_verification_mode: "skip_verification",
        },
      };
    },
    drop: async () => {
      await client.end().catch(() => undefined);
      await admin((c) => c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
    },
  };
}
