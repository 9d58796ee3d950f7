// @ts-check
import js from "@eslint/js";
import tseslint from "typescript-eslint";
import reactHooks from "eslint-plugin-react-hooks";
import globals from "globals";

const sqliteImports = ["better-sqlite3", "better-sqlite3-napi"].map((name) => ({
  name,
  allowTypeImports: true,
  message: "load SQLite through shared/sqlite-native.ts (the build for this Node)",
}));

export default tseslint.config(
  { ignores: ["node_modules", "dist", "**/fixtures/**", "coverage", ".headwater"] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node, ...globals.browser } },
    rules: {
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
      "@typescript-eslint/consistent-type-imports": "error",
    },
  },
  {
    files: ["renderer/**/*.{ts,tsx}"],
    plugins: { "react-hooks": reactHooks },
    rules: { ...reactHooks.configs.recommended.rules },
  },
  {
    // Only electron/ may import electron (and electron-store, which imports it).
    files: ["shared/**", "server/**", "renderer/**", "cli/**", "test/**", "e2e/**", "bench/**"],
    rules: {
      "no-restricted-imports": ["error", { paths: ["electron", "electron-store"] }],
    },
  },
  {
    // SQLite is loaded through shared/sqlite-native.ts, which picks the better-sqlite3 build that
    // runs on this Node (12 aborts on Node 24, 13 crashes on Node 20). Types may come from anywhere.
    files: ["**/*.{ts,tsx,mts}"],
    ignores: ["shared/sqlite-native.ts"],
    rules: { "@typescript-eslint/no-restricted-imports": ["error", { paths: sqliteImports }] },
  },
  {
    // The product's Node code takes node:http(s) from shared/node-http.ts: an ESM import of them
    // loads undici on Node 24 (70 ms of every start; see that file). Tests and benches may import them.
    files: ["server/**/*.ts", "cli/**/*.ts", "shared/**/*.ts", "electron/**/*.ts"],
    ignores: ["shared/sqlite-native.ts", "shared/node-http.ts", "**/*.test.ts", "**/testing/**"],
    rules: {
      "@typescript-eslint/no-restricted-imports": [
        "error",
        {
          paths: [
            ...sqliteImports,
            ...["node:http", "node:https"].map((name) => ({
              name,
              allowTypeImports: true,
              message: "take node:http and node:https from shared/node-http.ts (required, not imported)",
            })),
          ],
        },
      ],
    },
  },
);
