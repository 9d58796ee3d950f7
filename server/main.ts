/**
 * `npm run server`: read the configuration, start the server, print where it listens, and stop
 * cleanly on SIGINT / SIGTERM (in-flight requests finish before the database closes).
 */
import { createServer } from "./app.js";
import { ConfigError, loadConfig, type Config } from "./config.js";

async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`headwater: ${err.message}\n`);
      process.exit(2);
    }
    throw err;
  }
  // `secrets rotate` (what `headwater secrets rotate` runs): re-seal every account, then exit.
  if (process.argv[2] === "secrets" && process.argv[3] === "rotate") return rotate(config);
  let server;
  try {
    server = await createServer(config);
  } catch (err) {
    // A setting that only the start can check (the secrets key on PostgreSQL): said, not a stack.
    if (err instanceof ConfigError) {
      process.stderr.write(`headwater: cannot start: ${err.message}\n`);
      process.exit(2);
    }
    throw err;
  }
  process.stdout.write(`headwater server listening on ${server.url}\n`);

  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    process.stdout.write(`headwater: ${signal}, stopping\n`);
    server.close().then(
      () => process.exit(0),
      (err: unknown) => {
        process.stderr.write(`headwater: error while stopping: ${String(err)}\n`);
        process.exit(1);
      },
    );
  };
  process.on("SIGINT", () => stop("SIGINT"));
  process.on("SIGTERM", () => stop("SIGTERM"));
}

async function rotate(config: Config): Promise<void> {
  const { rotateSecrets, describeRotation } = await import("./secrets/rotate.js");
  try {
    const { text, ok } = describeRotation(await rotateSecrets(config));
    process.stdout.write(`${text}\n`);
    process.exit(ok ? 0 : 1);
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`headwater: ${err.message}\n`);
      process.exit(2);
    }
    throw err;
  }
}

main().catch((err: unknown) => {
  process.stderr.write(
    `headwater: cannot start: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`,
  );
  process.exit(1);
});
