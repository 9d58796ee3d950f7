// @ts-check
import js from "@eslint/js";
import tseslint from "typescript-eslint";
import reactHooks from "eslint-plugin-react-hooks";
import globals from "globals";

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
);
