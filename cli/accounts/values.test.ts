import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import type { Source } from "../../shared/resources/index.js";
import { splitAccountFlags } from "../deploy/props.js";
import { UsageError } from "../errors.js";
import { shownSource } from "../redact.js";
import { parseValues, readValues } from "./values.js";

const SECRET = "s3cr+t/=\"pw\"";

/** Runs `fn` and returns the UsageError it threw. */
function usageError(fn: () => unknown): UsageError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(UsageError);
    return err as UsageError;
  }
  throw new Error("no error thrown");
}

describe("account values from stdin", () => {
  it("reads a JSON object, values kept as typed", () => {
    expect(parseValues(`{"host":"db","port":5432,"ssl":{"ca":"-----BEGIN\\n..."}}\n`)).toEqual({ host: "db", port: 5432, ssl: { ca: "-----BEGIN\n..." } });
  });

  it("reads name=value lines: the value is everything after the first =, as written", () => {
    const text = `# prod\r\nhost=db.internal\r\n\n password=${SECRET}\nempty=\n`;
    expect(parseValues(text)).toEqual({ host: "db.internal", password: SECRET, empty: "" });
  });

  it("refuses what it cannot read, without ever quoting the text", () => {
    for (const text of ["", " \n", `{"password": ${SECRET}`, `["${SECRET}"]`, "{}", `{"": "${SECRET}"}`, `host=db\n${SECRET}`, `=${SECRET}`, `a=1\na=${SECRET}`]) {
      const err = usageError(() => parseValues(text));
      expect(err.message).not.toContain("s3cr");
    }
    expect(usageError(() => parseValues(`host=db\n${SECRET}`)).message).toMatch(/stdin line 2 is not name=value/);
  });

  it("with --field, stdin must hold exactly those fields", async () => {
    const stdin = (text: string) => Object.assign(PassThrough.from([text]), { isTTY: false }) as unknown as NodeJS.ReadStream;
    await expect(readValues({ fields: ["host", "password"], stdin: stdin("host=a\npassword=b\n") })).resolves.toEqual({ host: "a", password: "b" });
    await expect(readValues({ fields: ["host", "password"], stdin: stdin("host=a\n") })).rejects.toThrow(/no value for password/);
    await expect(readValues({ fields: ["host"], stdin: stdin("host=a\nhots=b\n") })).rejects.toThrow(/stdin has hots, which --field does not name/);
  });

  it("on a terminal, asks for each field with the answer hidden", async () => {
    const tty = Object.assign(new PassThrough(), { isTTY: true }) as unknown as NodeJS.ReadStream;
    const shown = new PassThrough();
    let echoed = "";
    shown.on("data", (c: Buffer) => (echoed += c.toString()));
    const reading = readValues({ fields: [], stdin: tty, stderr: shown as unknown as NodeJS.WriteStream });
    const answer = async (text: string) => {
      await new Promise((r) => setTimeout(r, 20));
      tty.write(text);
    };
    await answer("host, password\n");
    await answer("db.internal\n");
    await answer("hunter22\n");
    await expect(reading).resolves.toEqual({ host: "db.internal", password: "hunter22" });
    expect(echoed).toMatch(/Field names/);
    expect(echoed).toMatch(/password \(hidden\)/);
    expect(echoed).not.toContain("hunter22");
    expect(echoed).not.toContain("db.internal");
  });
});

describe("--account", () => {
  it("takes prop=apn_... only", () => {
    expect(splitAccountFlags(["db=apn_abc123", " slack = apn_X9 "])).toEqual([
      ["db", "apn_abc123"],
      ["slack", "apn_X9"],
    ]);
    for (const bad of ["db", "db=", "=apn_abc", "db=abc", "db=apn_", "db=dc_abc", "db=apn_a-b"]) {
      expect(usageError(() => splitAccountFlags([bad])).message).toMatch(/--account takes prop=apn_\.\.\./);
    }
    expect(usageError(() => splitAccountFlags(["db=apn_a", "db=apn_b"])).message).toMatch(/given twice/);
  });
});

describe("a source's account reference as printed", () => {
  const source = (configured_props: Record<string, unknown>) =>
    ({ id: "dc_x", name: "x", component_id: "sc_x", active: true, configured_props, created_at: 1, updated_at: 1 }) as unknown as Source;

  it("shows the id (shared/secrets.ts); inline credentials and secret-looking props stay masked", () => {
    const shown = shownSource(
      source({
        db: { authProvisionId: "apn_abc" },
        github: { $auth: { oauth_access_token: "gho-1" } },
        authAccount: { authProvisionId: "apn_def" },
        apiToken: "tok-1",
      }),
      [
        { name: "db", type: "app", app: "postgresql" },
        { name: "github", type: "app", app: "github" },
        { name: "authAccount", type: "app", app: "slack" },
        { name: "apiToken", type: "string" },
      ],
    );
    expect(shown.configured_props).toEqual({
      db: { authProvisionId: "apn_abc" },
      github: { $auth: { oauth_access_token: "••••" } },
      authAccount: { authProvisionId: "apn_def" },
      apiToken: "••••",
    });
  });
});
