/** Types of build-renderer.mjs, for the TypeScript callers (web host, e2e harness). */
export declare function rendererIsStale(): boolean;
export declare function ensureRendererBuilt(opts?: { log?: (line: string) => void; force?: boolean }): Promise<string>;
