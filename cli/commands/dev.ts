/**
 * `dev <file>`: deploy the file as a source, re-deploy on every save of it or its relative
 * imports, and stream the source's events, `$logs` and `$errors` as they happen. A version that
 * fails to load is reported and the last good one keeps running. SIGINT / SIGTERM / SIGHUP delete
 * the dev source (unless `--keep`) and exit 0; so does a signal that arrives during the first
 * deploy. A failure of the event streams (network, 401, 404) also deletes it, then exits 1.
 * Only a source dev created is ever deleted: `--name` of a source that existed before dev updates
 * it (as `deploy` would), and dev leaves it in place when it stops, saying so.
 */
import path from "node:path";
import type { Command } from "commander";
import { ApiError } from "../../shared/client/index.js";
import { slugify } from "../../shared/ids.js";
import type { EventSummary } from "../../shared/resources/index.js";
import { untilAborted, type Context } from "../context.js";
import { deploySource, resolveAccounts, type DeployResult } from "../deploy/deploy.js";
import { readPropsFile, splitAccountFlags, splitPropFlags } from "../deploy/props.js";
import { watchFiles } from "../deploy/watch.js";
import { describeError } from "../errors.js";
import { followEvents } from "../follow/follow.js";
import { newestId } from "../follow/recent.js";
import { eventLine } from "../output/event-line.js";
import { withSpinner } from "../output/spinner.js";
import { collectRepeated, type Act } from "../options.js";

export function registerDev(program: Command, act: Act) {
  program
    .command("dev")
    .description("deploy a file as a source, re-deploy it on every save and stream its events and logs")
    .argument("<file>", "the component file")
    .option("--name <name>", "the dev source's name (default: <component name>-dev)")
    .option("--prop <key=value>", "a prop value (repeatable); JSON for non-string props", collectRepeated, [])
    .option("--props-file <file>", "a JSON file of prop values (--prop wins)")
    .option("--account <prop=apn_...>", "an app prop's connected account (repeatable; see headwater accounts)", collectRepeated, [])
    .option("--keep", "keep the source when dev stops (default: delete it)")
    .action(act((ctx, [file], opts) => dev(ctx, file!, opts)));
}

async function dev(ctx: Context, file: string, opts: Record<string, unknown>): Promise<void> {
  ctx.endsOnSignal();
  const propFlags = splitPropFlags(opts.prop as string[]);
  const accountFlags = splitAccountFlags(opts.account as string[]);
  const propsFromFile = readPropsFile(opts.propsFile as string | undefined);
  const conn = await ctx.connect();
  const { client, apiKey } = conn;
  // Read once: each re-deploy sends the same references (an account in use cannot be deleted).
  const accounts = await resolveAccounts(client, accountFlags);
  const { out } = ctx;
  const status = (line: string, colour: (s: string) => string = out.errStyle.dim) => out.info(colour(`dev: ${line}`));

  // The first deploy runs to its end even when a signal arrives, so that what it made is deleted.
  const first: DeployResult = await withSpinner(out.stderr, `deploying ${file}`, () =>
    deploySource(client, {
      target: { file },
      name: opts.name as string | undefined,
      defaultName: (c) => `${slugify(c.name)}-dev`,
      propsFromFile,
      propFlags,
      accounts,
    }),
  );
  const sourceId = first.source.id;
  let version = 1;
  const cleanup = async () => {
    if (!first.created) {
      // Deleting it would take its events and subscriptions, which dev never owned.
      status(`kept ${first.source.name} (${sourceId}): it existed before dev started`);
      return;
    }
    if (opts.keep) {
      status(`kept ${first.source.name} (${sourceId})`);
      return;
    }
    try {
      await client.deleteSource(sourceId);
      status(`deleted ${first.source.name} (${sourceId})`);
    } catch (err) {
      if (!(err instanceof ApiError && err.status === 404)) throw err;
      status(`${first.source.name} (${sourceId}) was already deleted`);
    }
  };
  if (ctx.signal.aborted) return cleanup();

  status(`${first.created ? "created" : "updated"} ${first.source.name} (${sourceId}), version 1`, out.errStyle.green);
  if (first.endpointUrl) status(`endpoint ${first.endpointUrl}`, (s) => s);

  const print = (e: EventSummary) => (out.json ? out.jsonLine(e) : out.stdout.write(eventLine(e, out.style) + "\n"));
  const streams = new AbortController();
  const stopStreams = () => streams.abort();
  ctx.signal.addEventListener("abort", stopStreams, { once: true });
  const follow = async (channels: string[]) =>
    followEvents({
      client,
      apiKey,
      sourceId,
      channels,
      after: await newestId(client, sourceId, channels),
      signal: streams.signal,
      onEvent: print,
      onStatus: (line) => status(line, out.errStyle.yellow),
    });
  const following = Promise.all([follow([""]), follow(["$logs", "$errors"])]);

  // Re-deploys run one at a time; a save during one queues the next.
  let deploying: Promise<void> = Promise.resolve();
  const redeploy = async (changed: string) => {
    if (ctx.signal.aborted) return;
    try {
      const r = await deploySource(client, { target: { file }, sourceId, propsFromFile, propFlags, accounts });
      version += 1;
      watcher.setFiles(r.inputs);
      status(`${rel(changed)} changed: re-deployed, version ${version} (${r.component.name} ${r.component.version})`, out.errStyle.green);
    } catch (err) {
      status(`${rel(changed)} changed but did not deploy: ${describeError(err).line}; version ${version} keeps running`, out.errStyle.red);
    }
  };
  const watcher = watchFiles(first.inputs, (changed) => {
    deploying = deploying.then(() => redeploy(changed));
  });
  const onStop = first.created && !opts.keep ? "deletes" : "keeps";
  status(`watching ${first.inputs.length} file(s); Ctrl-C stops and ${onStop} the source`);

  // Whatever ends dev (a signal, or a stream that failed: network, 401, 404), the source it made
  // is cleaned up before the failure is reported.
  let failed = false;
  let failure: unknown;
  try {
    await Promise.race([untilAborted(ctx.signal), following]);
  } catch (err) {
    failed = true;
    failure = err;
  }
  try {
    stopStreams();
    await watcher.close();
    await deploying;
    await following.catch(() => undefined);
    ctx.signal.removeEventListener("abort", stopStreams);
  } finally {
    await cleanup().catch((err: unknown) => {
      // The stream's failure is the one to report; a failed delete is still said.
      if (!failed) throw err;
      status(`could not delete ${first.source.name} (${sourceId}): ${describeError(err).line}`, out.errStyle.red);
    });
  }
  if (failed) throw failure;
}

const rel = (file: string) => path.relative(process.cwd(), file) || file;
