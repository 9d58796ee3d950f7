/**
 * A fault of the platform while a run is prepared is the platform's: the queue runs the job
 * again, and the run happens once it can (as on the source path), never an `$errors` entry or
 * a lost event. Here the database refuses the read of a step's account once: its table is
 * renamed away from another connection, then back.
 */
import path from "node:path";
import { SQLite as Database } from "../../shared/sqlite-native.js";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sleep, step } from "../delivery/helpers.js";
import { testDatabases } from "../support/databases.js";
import { startServer, type TestServer, type TestUser } from "../support/server.js";

const SIGN = `
export default {
  key: "signer-sign",
  name: "Sign",
  version: "0.0.1",
  type: "action",
  props: { signer: { type: "app", app: "signer" }, text: { type: "string" } },
  async run() {
    return this.text + " signed with " + this.signer.$auth.seal.length + " chars";
  },
};`;

describe.each(testDatabases())("a platform fault preparing a run, on $name", (db) => {
  let srv: TestServer;
  let alice: TestUser;

  beforeAll(async () => {
    srv = await startServer({ db });
    alice = await srv.newUser();
    await alice.client.createComponent({ component_code: SIGN });
  }, 60_000);
  afterAll(() => srv?.stop());

  /** Runs SQL on the server's database from a connection of its own. */
  async function sqlOutside(statement: string): Promise<void> {
    if (srv.databaseUrl) {
      const c = new pg.Client({ connectionString: srv.databaseUrl });
      await c.connect();
      try {
        await c.query(statement);
      } finally {
        await c.end();
      }
      return;
    }
    const file = new Database(path.join(srv.dataDir, "headwater.db"));
    try {
      file.exec(statement);
    } finally {
      file.close();
    }
  }

  it(
    "runs the job again once the accounts' read works, and records one successful run",
    { timeout: 60_000 },
    async () => {
      const account = await alice.client.createAccount({ app: "signer", auth: { seal: "abcdef" } });
      const wf = await alice.client.createWorkflow({
        name: "signs",
        steps: [
          {
            name: "sign",
            action: "signer-sign",
            props: { signer: { authProvisionId: account.id }, text: "{{steps.trigger.event.body.text}}" },
          },
          { name: "emit", code: step(`$.send.emit(steps.sign.$return_value); return 1;`) },
        ],
      });
      await sqlOutside("ALTER TABLE accounts RENAME TO accounts_away");
      let runId: string;
      try {
        const res = await fetch(wf.endpoint_url, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: '{"text":"memo"}',
        });
        expect(res.status).toBe(200);
        runId = res.headers.get("x-headwater-run-id")!;
        // The first attempt met the refusal: the run waits for its retry, nothing went to $errors.
        await sleep(400);
        const meanwhile = await alice.client.getWorkflowRun(wf.id, runId).catch(() => undefined);
        expect(meanwhile?.status ?? "not started").not.toMatch(/success|error/);
      } finally {
        await sqlOutside("ALTER TABLE accounts_away RENAME TO accounts");
      }
      const end = Date.now() + 30_000;
      let run = await alice.client.getWorkflowRun(wf.id, runId).catch(() => undefined);
      while ((!run || run.status === "running" || run.status === "queued") && Date.now() < end) {
        await sleep(100);
        run = await alice.client.getWorkflowRun(wf.id, runId).catch(() => undefined);
      }
      expect(run?.status).toBe("success");
      expect(run?.steps[0]?.return_value).toBe("memo signed with 6 chars");
      expect((await alice.client.listWorkflowRuns(wf.id)).data.map((r) => r.id)).toEqual([runId]);
      expect((await alice.client.listWorkflowEvents(wf.id)).data.map((e) => e.event)).toEqual([
        { raw_event: "memo signed with 6 chars" },
      ]);
      expect((await alice.client.listWorkflowErrors(wf.id)).data).toEqual([]);
    },
  );
});
