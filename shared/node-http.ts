/**
 * node:http and node:https for Node code (server, CLI, web mode), required rather than imported.
 *
 * Why: on Node 24 an ESM import of node:http (`import http from "node:http"`, and so every static
 * import of it in an ESM bundle) builds the builtin's ESM facade, which reads every export, and
 * the WebSocket getters among them load undici: 177 against 107 ms for a script that only loads
 * node:http (hyperfine, 20 runs; no difference on Node 20). One such import anywhere in a process
 * costs it that, so none of ours imports them: types come from `import type`, values from here.
 */
import { createRequire } from "node:module";
import type httpModule from "node:http";
import type httpsModule from "node:https";

const require = createRequire(import.meta.url);

export const nodeHttp = require("node:http") as typeof httpModule;
export const nodeHttps = require("node:https") as typeof httpsModule;
