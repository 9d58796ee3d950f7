/**
 * Versioned migrations, applied in name order at start. One file per step; never edit a
 * migration that has shipped, add a new one. Each is written once for SQLite and PostgreSQL.
 */
import type { Migration } from "kysely";
import * as core from "./0001_core.js";
import * as events from "./0002_events.js";
import * as runtime from "./0003_runtime.js";
import * as keysPerAccount from "./0004_component_keys_per_account.js";
import * as userAdmin from "./0005_user_admin.js";
import * as eventInspection from "./0006_event_inspection.js";
import * as searchIndexBehind from "./0007_search_index_behind.js";
import * as dropJobsRunAfter from "./0008_drop_jobs_run_after.js";
import * as searchIndexFile from "./0009_search_index_file.js";
import * as accounts from "./0010_accounts.js";
import * as workflowRuns from "./0011_workflow_runs.js";
import * as executionControls from "./0012_execution_controls.js";
import * as runsOneIndex from "./0013_runs_one_index.js";
import * as workflowVersions from "./0014_workflow_versions.js";
import * as workflowSchedules from "./0015_workflow_schedules.js";
import * as envVars from "./0016_env_vars.js";
import * as dataStores from "./0017_data_stores.js";
import * as dataStoreCalls from "./0018_data_store_calls.js";

export const migrations: Record<string, Migration> = {
  "0001_core": core,
  "0002_events": events,
  "0003_runtime": runtime,
  "0004_component_keys_per_account": keysPerAccount,
  "0005_user_admin": userAdmin,
  "0006_event_inspection": eventInspection,
  "0007_search_index_behind": searchIndexBehind,
  "0008_drop_jobs_run_after": dropJobsRunAfter,
  "0009_search_index_file": searchIndexFile,
  "0010_accounts": accounts,
  "0011_workflow_runs": workflowRuns,
  "0012_execution_controls": executionControls,
  "0013_runs_one_index": runsOneIndex,
  "0014_workflow_versions": workflowVersions,
  "0015_workflow_schedules": workflowSchedules,
  "0016_env_vars": envVars,
  "0017_data_stores": dataStores,
  "0018_data_store_calls": dataStoreCalls,
};
