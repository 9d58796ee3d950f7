import { describe, expect, it } from "vitest";
import type { RunRow } from "../../store/repos/runs.js";
import { runJsonBytes, runOfRow } from "./record.js";

const base: RunRow = {
  id: "r_1",
  workflow_id: "p_1",
  owner_id: "u_1",
  status: "success",
  trigger_json: JSON.stringify({ type: "http", source_id: null }),
  attempt: 1,
  created_ms: 1000,
  started_ms: 1001,
  ended_ms: 1050,
  updated_ms: 1050,
  event_json: JSON.stringify({ body: { n: "ü 💧", deep: [1, { a: null }] } }),
  steps_json: JSON.stringify([{ id: "s1", name: "a", status: "success", logs: [{ level: "log", msg: "hi" }] }]),
  response_json: null,
  error_json: null,
  exit_reason: null,
};

describe("runJsonBytes", () => {
  it("is the text of runOfRow, field for field and in order, whatever the row holds", () => {
    const rows: RunRow[] = [
      base,
      { ...base, status: "running", started_ms: 1001, ended_ms: null },
      { ...base, status: "queued", started_ms: null, ended_ms: null },
      {
        ...base,
        status: "retrying",
        ended_ms: null,
        next_at_ms: 9000,
        pending_job_id: "j",
        attempts_json: JSON.stringify([{ attempt: 1, status: "error" }]),
        error_json: JSON.stringify({ name: "Error", message: "boom", stack: "at a" }),
      },
      { ...base, status: "delayed", next_at_ms: 7000, exit_reason: "done", response_json: '{"status":204}' },
    ];
    for (const row of rows) {
      const { event_json, steps_json, ...rest } = row;
      const bytes = runJsonBytes({ ...rest, event_bytes: Buffer.from(event_json), steps_bytes: Buffer.from(steps_json) });
      const text = bytes.toString();
      expect(text).toBe(JSON.stringify(runOfRow(row, false)));
      expect(JSON.parse(text)).toEqual(runOfRow(row, false));
      const answer = runJsonBytes(
        { ...rest, event_bytes: Buffer.from(event_json), steps_bytes: Buffer.from(steps_json) },
        Buffer.from('{"data":'),
        Buffer.from("}"),
      );
      expect(answer.toString()).toBe(JSON.stringify({ data: runOfRow(row, false) }));
    }
  });
});
