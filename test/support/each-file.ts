/**
 * Runs before each test file of the `servers` project (vitest.config.ts). Those files share
 * worker processes, so the helpers they import are loaded once per worker: what a helper must
 * do at the end of every file is registered here.
 */
import { afterAll } from "vitest";
import { removeTempDirs } from "./temp-dirs.js";

afterAll(removeTempDirs);
