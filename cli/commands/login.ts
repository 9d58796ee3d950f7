/**
 * `login`: asks for the API URL and key (or takes --api-url / --api-key), checks the key with
 * `GET /users/me`, and saves it as a profile (`--profile NAME`, default "default") in a 0600 file.
 * Answers come from stdin when it is not a TTY: `printf '%s\n%s\n' URL KEY | headwater login`.
 */
import type { Command } from "commander";
import { cliClient, parseApiUrl } from "../connection/resolve.js";
import { checkProfileName, DEFAULT_PROFILE, profilesPath, saveProfile } from "../connection/profiles-file.js";
import type { Context } from "../context.js";
import { UsageError } from "../errors.js";
import { createPrompter } from "../output/prompt.js";
import type { Act } from "../options.js";

export function registerLogin(program: Command, act: Act) {
  program
    .command("login")
    .description("save an API URL and key as a profile (checked with the server first)")
    .action(act(login));
}

async function login(ctx: Context, _args: string[], opts: Record<string, unknown>): Promise<void> {
  const name = (opts.profile as string | undefined) ?? DEFAULT_PROFILE;
  const bad = checkProfileName(name);
  if (bad) throw new UsageError(`--profile ${name}: ${bad}`);
  const prompter = createPrompter(process.stdin, ctx.out.stderr);
  let url: string;
  let key: string;
  try {
    url = (opts.apiUrl as string | undefined) ?? (await prompter.ask("API URL (e.g. http://127.0.0.1:7433/v1): "));
    key = (opts.apiKey as string | undefined) ?? (await prompter.ask("API key: ", { secret: true }));
  } finally {
    prompter.close();
  }
  if (!url) throw new UsageError("no API URL given");
  if (!key) throw new UsageError("no API key given");
  const baseUrl = parseApiUrl(url, "the API URL");
  const me = await cliClient(baseUrl, key).getMe();
  const file = profilesPath(ctx.env);
  saveProfile(file, name, { apiUrl: baseUrl, apiKey: key, username: me.username });
  if (ctx.out.json) ctx.out.jsonLine({ profile: name, api_url: baseUrl, username: me.username, file });
  else ctx.out.say(`logged in to ${baseUrl} as ${me.username}; saved as profile ${name} in ${file}`);
}
