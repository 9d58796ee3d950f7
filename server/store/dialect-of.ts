/** Which database a Kysely instance (or transaction) runs on, for the few statements whose best form differs. */
import { SqliteAdapter } from "kysely";

export const isSqlite = (db: { getExecutor(): { readonly adapter: object } }): boolean => db.getExecutor().adapter instanceof SqliteAdapter;
