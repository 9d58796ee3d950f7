/** Types of electron-binary.mjs. */
export declare function findElectron(opts?: { needDisplay?: boolean }): { exe: string; reason?: undefined } | { exe?: undefined; reason: string };
