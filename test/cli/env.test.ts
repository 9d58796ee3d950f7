/**
 * `headwater env ...` through the real binary against a real server: a secret set from stdin or
 * an argument is never printed (not in a table, a `--json` line, a status line or an error); a
 * plain one's value is; one trailing line break of stdin is dropped; bad names and missing
 * values are usage errors (exit 2) that change nothing; deleting a missing one is exit 1.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { step } from "../delivery/helpers.js";
import { startServer, type TestServer, type TestUser } from "../support/server.js";
import { flags, ndjson, oneLine, runCli, type CliResult } from "./helpers.js";

const FROM_STDIN = "stdin-secret-0a8f3e61";
const FROM_ARG = "arg-secret-77c2d4b9";

describe("headwater env", { timeout: 120_000 }, () => {
  let server: TestServer;
  let user: TestUser;
  const seen: CliResult[] = [];
  const hw = async (input: string | undefined, ...args: string[]) => {
    const r = await runCli(
      [...flags(server.baseUrl, user.key), ...args],
      input === undefined ? {} : { input },
    );
    seen.push(r);
    return r;
  };

  beforeAll(async () => {
    server = await startServer();
    user = await server.newUser();
  });
  afterAll(async () => {
    await server?.stop();
  });

  /** What a step of the user's reads as process.env[name]: its length and its reversed text. */
  const reads = async (name: string) => {
    const wf = await user.client.createWorkflow({
      name: `reads ${name}`,
      steps: [
        {
          name: "r",
          code: step(
            `const v = process.env.${name} ?? ""; return { n: v.length, r: [...v].reverse().join("") };`,
          ),
        },
      ],
    });
    return (await user.client.testWorkflow(wf.id)).steps[0]!.return_value as { n: number; r: string };
  };
  const reversed = (s: string) => [...s].reverse().join("");

  it("set from stdin (a trailing line break dropped) or an argument; list hides secrets and shows plain values", async () => {
    const a = await hw(`${FROM_STDIN}\n`, "env", "set", "FROM_STDIN");
    expect(a.code, a.stderr).toBe(0);
    expect(a.stdout).toMatch(/set\s+FROM_STDIN\n/);
    expect(a.stdout).toMatch(/secret\s+yes/);
    expect(await reads("FROM_STDIN")).toEqual({ n: FROM_STDIN.length, r: reversed(FROM_STDIN) });

    expect((await hw(undefined, "env", "set", "FROM_ARG", FROM_ARG)).code).toBe(0);
    const plain = await hw(undefined, "env", "set", "REGION", "eu-west", "--plain");
    expect(plain.code, plain.stderr).toBe(0);
    expect(plain.stdout).toMatch(/value\s+eu-west\n/);
    // A value that is two lines keeps its inner line break.
    expect((await hw("line one\nline two\n", "env", "set", "TWO_LINES", "--plain")).code).toBe(0);
    expect((await user.client.listMyEnvVars()).find((v) => v.name === "TWO_LINES")?.value).toBe(
      "line one\nline two",
    );

    const table = await hw(undefined, "env", "list");
    expect(table.code, table.stderr).toBe(0);
    expect(table.stdout).toMatch(/FROM_ARG\s+yes\s+\(hidden\)/);
    expect(table.stdout).toMatch(/REGION\s+no\s+eu-west/);
    const rows = ndjson((await hw(undefined, "env", "list", "--json")).stdout) as Array<
      Record<string, unknown>
    >;
    expect(rows.map((r) => [r.name, r.secret, r.value])).toEqual([
      ["FROM_ARG", true, undefined],
      ["FROM_STDIN", true, undefined],
      ["REGION", false, "eu-west"],
      ["TWO_LINES", false, "line one\nline two"],
    ]);
  });

  it("refuses bad names, reserved names and missing values with exit 2, changing nothing; a missing one to delete is exit 1", async () => {
    const before = await user.client.listMyEnvVars();
    for (const args of [
      ["env", "set", "1BAD", "x"],
      ["env", "set", "HEADWATER_TOKEN", "x"],
      ["env", "delete", "no-such"],
    ]) {
      const r = await hw(undefined, ...args);
      expect(r.code, args.join(" ")).toBe(2);
      expect(oneLine(r.stderr)).toMatch(/not a variable name/);
    }
    const empty = await hw("", "env", "set", "EMPTY");
    expect(empty.code).toBe(2);
    expect(oneLine(empty.stderr)).toContain("no value for EMPTY");
    const missing = await hw(undefined, "env", "delete", "NOT_THERE");
    expect(missing.code).toBe(1);
    expect(oneLine(missing.stderr)).toContain("no variable named NOT_THERE");
    expect(await user.client.listMyEnvVars()).toEqual(before);
  });

  it("delete removes it; runs then go without it", async () => {
    const r = await hw(undefined, "env", "delete", "FROM_ARG");
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain("deleted FROM_ARG");
    expect(await reads("FROM_ARG")).toEqual({ n: 0, r: "" });
    const j = await hw(undefined, "env", "rm", "REGION", "--json");
    expect(ndjson(j.stdout)).toEqual([{ name: "REGION", deleted: true }]);
  });

  it("never printed a secret's value", () => {
    for (const r of seen) {
      for (const secret of [FROM_STDIN, FROM_ARG]) {
        expect(r.stdout).not.toContain(secret);
        expect(r.stderr).not.toContain(secret);
      }
    }
  });
});
