/** Types of build.mjs. */
export declare function buildElectron(): Promise<{ main: string; preload: string }>;
