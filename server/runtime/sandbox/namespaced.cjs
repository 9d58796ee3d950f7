// @ts-check
/**
 * Preloaded (`--require`) in namespaces mode, before the worker: bwrap sets PWD in the
 * environment it starts the worker with; the component's environment stays `{TMPDIR}` only.
 */
"use strict";
delete process.env.PWD;
