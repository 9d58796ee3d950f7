/**
 * Sources as the CLI prints them (tables and `--json`): configured secrets masked by the rule in
 * shared/secrets.ts, so a terminal, a scrollback or a `--json` log never holds a credential.
 * By the same rule a connected account's reference (`{"authProvisionId": "apn_..."}`) is shown
 * as it is: an id, which is what `deploy --account` and `accounts list` speak of.
 */
import { ApiError, type Client } from "../shared/client/index.js";
import type { PropDescriptor, Source } from "../shared/resources/index.js";
import { redactConfiguredProps } from "../shared/secrets.js";

/** The source with its secret prop values masked; `props` are its component's, when known. */
export function shownSource<T extends Source>(source: T, props?: readonly PropDescriptor[]): T {
  return { ...source, configured_props: redactConfiguredProps(source.configured_props, props) };
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
