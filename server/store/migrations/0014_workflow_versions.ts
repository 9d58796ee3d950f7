/**
 * 0014: building workflows (decisions.md "Building workflows"). `workflows.version` counts its
 * deployed versions (1 on create); `workflow_versions` keeps each version's content, immutable,
 * for as long as the workflow exists; `workflow_drafts` holds its one draft; `runs.version`
 * names the version a run ran; `test_runs` keeps test runs apart. Every existing workflow gets its
 * version 1: its content as it is.
 */
import type { Kysely } from "kysely";

interface OldWorkflow {
  id: string;
  owner_id: string;
  name: string;
  steps_json: string;
  http_response: string | null;
  controls_json: string | null;
  created_ms: number | string;
}

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("workflows").addColumn("version", "integer", (c) => c.notNull().defaultTo(1)).execute();
  await db.schema.alterTable("runs").addColumn("version", "integer").execute();
  await db.schema
    .createTable("workflow_versions")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("workflow_id", "text", (c) => c.notNull())
    .addColumn("version", "integer", (c) => c.notNull())
    .addColumn("owner_id", "text", (c) => c.notNull())
    .addColumn("created_ms", "bigint", (c) => c.notNull())
    .addColumn("origin", "text", (c) => c.notNull())
    .addColumn("message", "text")
    .addColumn("restored_from", "integer")
    .addColumn("content_json", "text", (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex("workflow_versions_by_workflow")
    .on("workflow_versions")
    .columns(["workflow_id", "created_ms", "id"])
    .execute();
  // Test runs (POST /workflows/{id}/test): a table of their own, the newest 50 per workflow, so
  // that production runs' lists, retention and stats never see them. The columns of `runs`.
  await db.schema
    .createTable("test_runs")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("workflow_id", "text", (c) => c.notNull())
    .addColumn("owner_id", "text", (c) => c.notNull())
    .addColumn("status", "text", (c) => c.notNull())
    .addColumn("trigger_json", "text", (c) => c.notNull())
    .addColumn("attempt", "integer", (c) => c.notNull())
    .addColumn("created_ms", "bigint", (c) => c.notNull())
    .addColumn("started_ms", "bigint")
    .addColumn("ended_ms", "bigint")
    .addColumn("updated_ms", "bigint", (c) => c.notNull())
    .addColumn("event_json", "text", (c) => c.notNull())
    .addColumn("steps_json", "text", (c) => c.notNull())
    .addColumn("response_json", "text")
    .addColumn("error_json", "text")
    .addColumn("exit_reason", "text")
    .addColumn("pending_job_id", "text")
    .addColumn("next_at_ms", "bigint")
    .addColumn("attempts_json", "text")
    .addColumn("version", "integer")
    .execute();
  await db.schema.createIndex("test_runs_by_workflow").on("test_runs").columns(["workflow_id", "created_ms", "id"]).execute();
  await db.schema
    .createTable("workflow_drafts")
    .addColumn("workflow_id", "text", (c) => c.primaryKey())
    .addColumn("owner_id", "text", (c) => c.notNull())
    .addColumn("base_version", "integer", (c) => c.notNull())
    .addColumn("updated_ms", "bigint", (c) => c.notNull())
    .addColumn("content_json", "text", (c) => c.notNull())
    .execute();
  // Every workflow so far: its content as version 1 (the same shape as versions/content.ts writes).
  const any = db as Kysely<{ workflows: OldWorkflow; workflow_versions: Record<string, unknown> }>;
  const rows = await any
    .selectFrom("workflows")
    .select(["id", "owner_id", "name", "steps_json", "http_response", "controls_json", "created_ms"])
    .execute();
  for (const w of rows) {
    const controls = (w.controls_json ? JSON.parse(w.controls_json) : {}) as Record<string, unknown>;
    await any
      .insertInto("workflow_versions")
      .values({
        id: `wv_${w.id.replace(/^p_/, "")}${"1".padStart(10, "0")}`,
        workflow_id: w.id,
        version: 1,
        owner_id: w.owner_id,
        created_ms: Number(w.created_ms),
        origin: "create",
        message: null,
        restored_from: null,
        content_json: JSON.stringify({
          name: w.name,
          steps: JSON.parse(w.steps_json) as unknown,
          http_response: w.http_response === "workflow" ? "workflow" : "immediate",
          ...controls,
        }),
      })
      .execute();
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable("workflow_drafts").execute();
  await db.schema.dropTable("test_runs").execute();
  await db.schema.dropTable("workflow_versions").execute();
  await db.schema.alterTable("runs").dropColumn("version").execute();
  await db.schema.alterTable("workflows").dropColumn("version").execute();
}
