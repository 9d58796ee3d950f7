/**
 * The Kysely database interface: every table, grouped by the concern that owns it.
 * Each concern declares its tables in `tables/<concern>.ts` and its migration in `migrations/`.
 */
import type { AccountTables } from "./tables/accounts.js";
import type { CoreTables } from "./tables/core.js";
import type { DataStoreTables } from "./tables/data-stores.js";
import type { EnvTables } from "./tables/env.js";
import type { EventTables } from "./tables/events.js";
import type { RuntimeTables } from "./tables/runtime.js";

export interface Database
  extends CoreTables, EventTables, RuntimeTables, AccountTables, EnvTables, DataStoreTables {}
