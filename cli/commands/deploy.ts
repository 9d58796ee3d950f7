/** `deploy <file|url>`: creates a source, or updates the one with that name; prints its id and endpoint. */
import type { Command } from "commander";
import type { Context } from "../context.js";
import { componentTarget, deploySource, resolveAccounts } from "../deploy/deploy.js";
import { readPropsFile, splitAccountFlags, splitPropFlags } from "../deploy/props.js";
import { withSpinner } from "../output/spinner.js";
import { shownSource } from "../redact.js";
import { collectRepeated, type Act } from "../options.js";

export function registerDeploy(program: Command, act: Act) {
  program
    .command("deploy")
    .description("deploy a component file or URL as a source (updates the source of that name if there is one)")
    .argument("<file|url>", "a component file, or an http(s) URL of one")
    .option("--name <name>", "the source's name (default: the component's name)")
    .option("--prop <key=value>", "a prop value (repeatable); JSON for non-string props", collectRepeated, [])
    .option("--props-file <file>", "a JSON file of prop values (--prop wins)")
    .option("--account <prop=apn_...>", "an app prop's connected account (repeatable; see headwater accounts)", collectRepeated, [])
    .action(act((ctx, [target], opts) => deploy(ctx, target!, opts)));
}

async function deploy(ctx: Context, target: string, opts: Record<string, unknown>): Promise<void> {
  // The flags' shape and the props file are checked before anything touches the server. Prop
  // names and values can only be checked against the component's props, which the server reads
  // as it saves the component: a bad --prop then creates or changes no source, but the component
  // just saved stays (the API has no way to delete a component; it is unused, listed by
  // `list components`).
  const propFlags = splitPropFlags(opts.prop as string[]);
  const accountFlags = splitAccountFlags(opts.account as string[]);
  const propsFromFile = readPropsFile(opts.propsFile as string | undefined);
  const { client } = await ctx.connect();
  const accounts = await resolveAccounts(client, accountFlags);
  const result = await withSpinner(ctx.out.stderr, `deploying ${target}`, () =>
    deploySource(client, { target: componentTarget(target), name: opts.name as string | undefined, propsFromFile, propFlags, accounts }),
  );
  const { source, component } = result;
  ctx.out.fields(
    [
      [result.created ? "created" : "updated", source.id],
      ["name", source.name],
      ["component", `${component.id} (${component.name} ${component.version})`],
      ["endpoint", result.endpointUrl ?? "-"],
      ["active", source.active ? "yes" : "no"],
    ],
    { ...shownSource(source, component.configurable_props), endpoint_url: result.endpointUrl ?? null, created: result.created, component_name: component.name, component_version: component.version },
  );
}
