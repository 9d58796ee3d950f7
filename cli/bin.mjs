#!/usr/bin/env node
// The `headwater` executable: runs the TypeScript CLI through tsx, as `npm run server` runs the
// server, so a clone needs no build step. Node resolves a symlinked bin (npm link, npm install -g)
// to this real file, so the imports below find the project's own node_modules.
import { register } from "tsx/esm/api";

register();
const { main } = await import("./main.ts");
// Exit at once: open sockets (keep-alive, a closed stream's pool) must not keep a finished command alive.
process.exit(await main(process.argv));
