/**
 * Sources as the CLI prints them (tables and `--json`): configured secrets masked by the rule in
 * shared/secrets.ts, so a terminal, a scrollback or a `--json` log never holds a credential.
 * A connected account's reference (`{"authProvisionId": "apn_..."}`) is shown as it is: the id
 * names the account, it opens nothing without the owner's API key, and it is what `deploy
 * --account` and `accounts list` speak of.
 */
import { ApiError, type Client } from "../shared/client/index.js";
import { isId } from "../shared/ids.js";
import { accountIdOf, type PropDescriptor, type Source } from "../shared/resources/index.js";
import { MASK, redactConfiguredProps } from "../shared/secrets.js";

/** The source with its secret prop values masked; `props` are its component's, when known. */
export function shownSource<T extends Source>(source: T, props?: readonly PropDescriptor[]): T {
  const configured = source.configured_props;
  const shown = redactConfiguredProps(configured, props);
  for (const [name, value] of Object.entries(configured)) shown[name] = withAccountId(value, shown[name]);
  return { ...source, configured_props: shown };
}

/**
 * The masked value with its account id put back (the rule masks every value of an app prop, and
 * all of a prop whose name looks secret); whatever else the value holds stays masked.
 */
function withAccountId(value: unknown, shown: unknown): unknown {
  const id = accountIdOf(value);
  if (id === undefined || !isId("account", id)) return shown;
  if (shown !== null && typeof shown === "object" && !Array.isArray(shown)) return { ...shown, authProvisionId: id };
  const rest = Object.keys(value as Record<string, unknown>).filter((k) => k !== "authProvisionId");
  return { authProvisionId: id, ...Object.fromEntries(rest.map((k) => [k, MASK])) };
}

/**
 * The props of each component, for their `secret` flags. A component that cannot be read (gone,
 * or another user's) has none: its sources are still masked by the `$auth` and name rules.
 */
export async function componentProps(client: Client, componentIds: Iterable<string>): Promise<Map<string, PropDescriptor[]>> {
  const ids = [...new Set(componentIds)];
  const found = await Promise.all(
    ids.map(async (id) => {
      try {
        return [id, (await client.getComponent(id)).configurable_props] as const;
      } catch (err) {
        if (err instanceof ApiError && (err.status === 404 || err.status === 403)) return [id, []] as const;
        throw err;
      }
    }),
  );
  return new Map(found.map(([id, props]) => [id, [...props]]));
}
