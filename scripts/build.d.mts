/** Types of build.mjs, for the TypeScript callers (vitest's global setup, the bench). */
export declare const OUT_DIR: string;
/** Why the build must be (re)made, or null when it is up to date. */
export declare function staleReason(): string | null;
export declare function build(): Promise<string[]>;
export declare function ensureBuilt(opts?: { log?: (line: string) => void; force?: boolean }): Promise<void>;
