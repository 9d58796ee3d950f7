import { defineConfig } from "vite";
import react from "@vitejs/plugin-react";
import { fileURLToPath } from "node:url";

/**
 * Builds the dashboard renderer (renderer/index.html) into dist/renderer. `base: "./"` keeps
 * asset URLs relative so the same build loads from file:// in Electron and from the web host.
 */
export default defineConfig(({ command, mode }) => {
  // A production build must be production React whoever starts it: builds started from a test
  // run (NODE_ENV=test, e.g. the e2e harness) otherwise get React's development build and JSX
  // runtime, which are slower and several times heavier in memory under the live table.
  if (command === "build" && mode === "production") process.env.NODE_ENV = "production";
  return config(mode);
});

function config(mode: string) {
  return {
    root: fileURLToPath(new URL("./renderer", import.meta.url)),
    base: "./",
    plugins: [react()],
    define: { "process.env.NODE_ENV": JSON.stringify(mode === "production" ? "production" : "development") },
    build: {
      outDir: fileURLToPath(new URL("./dist/renderer", import.meta.url)),
      emptyOutDir: true,
      sourcemap: true,
      chunkSizeWarningLimit: 1024,
    },
    server: { host: "127.0.0.1", strictPort: false },
  };
}
