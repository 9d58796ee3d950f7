/**
 * componentStack and scrubServerPaths on stacks as workers send them (taken from real runs of
 * sources, workflow steps and the platform shim; the install dir and data dir substituted).
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { APP_ROOT } from "../../shared/app-paths.js";
import { componentStack, registerDataDir, scrubServerPaths } from "./stacks.js";

const R = APP_ROOT;
let D: string;
let opts: { dataDirs: string[] };

beforeAll(() => {
  D = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "hw-stacks-")));
  opts = { dataDirs: [D] };
});
afterAll(() => fs.rmSync(D, { recursive: true, force: true }));

/** What no stack shown to a user may hold. */
function expectNoServerPath(text: string) {
  expect(text).not.toContain(R);
  expect(text).not.toContain(D);
  expect(text).not.toContain("/server/");
  expect(text).not.toContain("node:internal");
  expect(text).not.toContain("node_modules");
}

describe("componentStack", () => {
  it("keeps a source's message and its own frames; drops the worker's and Node's internals", () => {
    const stack = [
      "TypeError: plain failure",
      "    at helper (/component/index.mjs:2:28)",
      "    at Object.run (/component/index.mjs:6:54)",
      "    at process.processTicksAndRejections (node:internal/process/task_queues:95:5)",
      `    at async handleInvoke (${R}/server/runtime/sandbox/worker.cjs:234:48)`,
      `    at async handleRuns (${R}/server/runtime/sandbox/worker.cjs:262:13)`,
      `    at async process.<anonymous> (${R}/server/runtime/sandbox/worker.cjs:314:7)`,
    ].join("\n");
    expect(componentStack(stack, opts)).toBe(
      [
        "TypeError: plain failure",
        "    at helper (/component/index.mjs:2:28)",
        "    at Object.run (/component/index.mjs:6:54)",
      ].join("\n"),
    );
  });

  it("drops a workflow step's runner frames (steps.cjs, worker.cjs, node:events)", () => {
    const stack = [
      "RangeError: step failed",
      "    at h (/component/index.mjs:1:158)",
      "    at Object.run (/component/index.mjs:1:191)",
      `    at runSteps (${R}/server/runtime/sandbox/steps.cjs:144:35)`,
      `    at process.<anonymous> (${R}/server/runtime/sandbox/worker.cjs:318:28)`,
      "    at process.emit (node:events:524:28)",
      "    at emit (node:internal/child_process:950:14)",
    ].join("\n");
    expect(componentStack(stack, opts)).toBe(
      [
        "RangeError: step failed",
        "    at h (/component/index.mjs:1:158)",
        "    at Object.run (/component/index.mjs:1:191)",
      ].join("\n"),
    );
  });

  it("keeps Node's frames the component called (Array.map, fs, Promise.all), not those the server called", () => {
    const stack = [
      "Error: in map",
      "    at /component/index.mjs:2:51",
      "    at Array.map (<anonymous>)",
      "    at helper (/component/_1/lib/util.mjs:2:33)",
      "    at Object.readFileSync (node:fs:448:20)",
      "    at async Promise.all (index 0)",
      "    at run (/component/index.mjs:9:1)",
      "    at new Promise (<anonymous>)",
      `    at runSteps (${R}/server/runtime/sandbox/steps.cjs:144:35)`,
    ].join("\n");
    expect(componentStack(stack, opts).split("\n")).toEqual([
      "Error: in map",
      "    at /component/index.mjs:2:51",
      "    at Array.map (<anonymous>)",
      "    at helper (/component/_1/lib/util.mjs:2:33)",
      "    at Object.readFileSync (node:fs:448:20)",
      "    at async Promise.all (index 0)",
      "    at run (/component/index.mjs:9:1)",
    ]);
  });

  it("shows a package's frames from the npm cache by the package's own path", () => {
    const stack = [
      "SyntaxError: JSON5: invalid end of input at 1:2",
      `    at syntaxError (${D}/npm/json5@latest/node_modules/json5/lib/parse.js:1110:17)`,
      `    at Object.parse (${D}/npm/json5@latest/node_modules/json5/lib/parse.js:32:32)`,
      `    at send (${D}/npm/@pipedream+slack@0.9.1/node_modules/@pipedream/slack/node_modules/@slack/web-api/dist/WebClient.js:7:3)`,
      `    at file://${D}/npm/esm-only@latest/node_modules/esm-only/index.mjs:3:9`,
      "    at helper (/component/index.mjs:2:45)",
      `    at async handleRuns (${R}/server/runtime/sandbox/worker.cjs:262:13)`,
    ].join("\n");
    const shown = componentStack(stack, opts);
    expect(shown.split("\n")).toEqual([
      "SyntaxError: JSON5: invalid end of input at 1:2",
      "    at syntaxError (json5/lib/parse.js:1110:17)",
      "    at Object.parse (json5/lib/parse.js:32:32)",
      "    at send (@slack/web-api/dist/WebClient.js:7:3)",
      "    at esm-only/index.mjs:3:9",
      "    at helper (/component/index.mjs:2:45)",
    ]);
    expectNoServerPath(shown);
  });

  it("drops the platform shim and the server's node_modules; a `Caused by:` line stays", () => {
    const stack = [
      "Error: network access to 127.0.0.1:1 is not allowed from a component: loopback address",
      `    at AxiosError.from (${R}/node_modules/axios/dist/node/axios.cjs:1684:24)`,
      "    at RedirectableRequest.emit (node:events:524:28)",
      `    at eventHandlers.<computed> (${R}/node_modules/follow-redirects/index.js:56:24)`,
      "    at emitErrorNT (node:internal/streams/destroy:169:8)",
      `    at async axios (${R}/server/runtime/sandbox/shims/platform/axios.cjs:168:16)`,
      "    at async Object.run (/component/index.mjs:4:5)",
      "Caused by: Error: network access to 127.0.0.1:1 is not allowed from a component: loopback address",
      `    at Socket.<anonymous> (${R}/server/runtime/sandbox/net-guard.cjs:98:19)`,
      "    at Socket.emit (node:events:524:28)",
    ].join("\n");
    expect(componentStack(stack, opts).split("\n")).toEqual([
      "Error: network access to 127.0.0.1:1 is not allowed from a component: loopback address",
      "    at async Object.run (/component/index.mjs:4:5)",
      "Caused by: Error: network access to 127.0.0.1:1 is not allowed from a component: loopback address",
    ]);
  });

  it("scrubs the message lines: npm cache, worker temp dir, other server paths", () => {
    const stack = [
      "Error: Cannot find module 'is-number/nope'",
      "Require stack:",
      `- ${D}/npm/is-number@latest/package.json`,
      `- ${R}/server/runtime/sandbox/loader.cjs`,
      "    at Module._resolveFilename (node:internal/modules/cjs/loader:1207:15)",
      `    at Function.load [as _load] (${R}/server/runtime/sandbox/loader.cjs:62:19)`,
      "    at require (node:internal/modules/helpers:182:18)",
      "    at helper (/component/index.mjs:2:29)",
    ].join("\n");
    expect(componentStack(stack, opts).split("\n")).toEqual([
      "Error: Cannot find module 'is-number/nope'",
      "Require stack:",
      "- is-number@latest/package.json",
      "- <server>",
      "    at helper (/component/index.mjs:2:29)",
    ]);
    const tmp = `Error: ENOENT: no such file or directory, open '${D}/sandbox/16943-a20767aa-5f1c/nope.txt'\n    at helper (/component/index.mjs:2:43)`;
    expect(componentStack(tmp, opts)).toBe(
      "Error: ENOENT: no such file or directory, open '$TMPDIR/nope.txt'\n    at helper (/component/index.mjs:2:43)",
    );
  });

  it("drops any frame at an absolute path that is not the component's, and data dir files", () => {
    const stack = [
      "Error: x",
      "    at a (/usr/lib/node_modules/thing/index.js:1:1)",
      `    at b (${D}/headwater.db:1:1)`,
      "    at c (C:\\Program Files\\Headwater\\resources\\worker.cjs:1:1)",
      "    at d (/evil/component/x.mjs:1:1)",
      "    at eval (eval at <anonymous> (/component/index.mjs:1:1), <anonymous>:1:1)",
    ].join("\n");
    expect(componentStack(stack, opts).split("\n")).toEqual([
      "Error: x",
      "    at eval (eval at <anonymous> (/component/index.mjs:1:1), <anonymous>:1:1)",
    ]);
  });

  it("is a fixed point: a stack shown once is shown the same again", () => {
    const stack = [
      `Error: open '${D}/sandbox/1-a/x' failed`,
      `    at p (${D}/npm/json5@latest/node_modules/json5/lib/parse.js:1:2)`,
      "    at Array.map (<anonymous>)",
      "    at helper (/component/index.mjs:2:45)",
      `    at t (${D}/sandbox/1-a/gen.js:3:4)`,
      `    at async handleRuns (${R}/server/runtime/sandbox/worker.cjs:262:13)`,
    ].join("\n");
    const once = componentStack(stack, opts);
    expect(once).toContain("    at t ($TMPDIR/gen.js:3:4)");
    expect(componentStack(once, opts)).toBe(once);
    expect(componentStack(once)).toBe(once);
  });

  it("leaves text that is not a stack alone (a log line), empty stays empty", () => {
    expect(componentStack("", opts)).toBe("");
    expect(componentStack("boom", opts)).toBe("boom");
    const log = "meeting:\n    at noon in room 4\n    at 3pm: review (bring notes)";
    expect(componentStack(log, opts)).toBe(log);
    expect(componentStack("see /etc/hosts and /component/index.mjs", opts)).toBe(
      "see /etc/hosts and /component/index.mjs",
    );
  });

  it("a logged error (the worker's `Uncaught exception:` line) is cut like a stack", () => {
    const log = `Uncaught exception: Error: late\n    at Timeout._onTimeout (/component/index.mjs:3:30)\n    at listOnTimeout (node:internal/timers:581:17)\n    at process.processTimers (node:internal/timers:519:7)`;
    expect(componentStack(log, opts)).toBe(
      "Uncaught exception: Error: late\n    at Timeout._onTimeout (/component/index.mjs:3:30)",
    );
  });
});

describe("scrubServerPaths", () => {
  it("cuts the install dir, the data dir and a worker's egress dir out of a message", () => {
    const msg = `Cannot find module '${R}/server/x.cjs' (${D}/headwater.db) via /tmp/hw-eg-12-abc/ctl.sock; ${D}/npm/left-pad@1.3.0/node_modules/left-pad/index.js`;
    expect(scrubServerPaths(msg, opts)).toBe(
      "Cannot find module '<server>' (<server>) via <server>; left-pad/index.js",
    );
    expect(scrubServerPaths("nothing to see at /etc/hosts", opts)).toBe("nothing to see at /etc/hosts");
    // A folder whose name only begins like the data dir's is not under it.
    expect(scrubServerPaths(`${D}x/file`, opts)).toBe(`${D}x/file`);
  });

  it("knows the data dirs registered by runtimes, until they are forgotten", () => {
    const msg = `open '${D}/sandbox/9-b/out.txt'`;
    expect(scrubServerPaths(msg)).toBe(msg);
    const forget = registerDataDir(D);
    const again = registerDataDir(D);
    expect(scrubServerPaths(msg)).toBe("open '$TMPDIR/out.txt'");
    forget();
    forget();
    // Still registered by the second runtime on that dir.
    expect(scrubServerPaths(msg)).toBe("open '$TMPDIR/out.txt'");
    again();
    expect(scrubServerPaths(msg)).toBe(msg);
  });
});

describe("hostile stacks", () => {
  it("take time linear in their length (the server reads them on its event loop)", () => {
    const big = [
      `Error: ${"/a".repeat(300_000)} hw-eg- ${`${D}/x`.repeat(20_000)}`,
      `    at ${"(".repeat(200_000)}`,
      `    at f (${"(".repeat(1500)}/component/index.mjs:1:1)`,
      `${" ".repeat(200_000)}at x`,
      ...Array.from(
        { length: 20_000 },
        (_, i) => `    at f${i} (${R}/server/runtime/sandbox/worker.cjs:${i}:1)`,
      ),
      `    at g (${":1".repeat(100_000)})`,
    ].join("\n");
    const t0 = performance.now();
    const shown = componentStack(big, opts);
    expect(performance.now() - t0).toBeLessThan(2000);
    expect(shown).not.toContain(R);
    expect(shown).not.toContain(`${D}/`);
  });
});
