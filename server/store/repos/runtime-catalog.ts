/**
 * The runtime's read-only view of sources and components (tables owned by the core concern):
 * by id, unscoped, because the runtime acts for a source whose ownership the API already checked.
 */
import type { PropDescriptor } from "../../../shared/resources/index.js";
import type { RuntimeCatalog, RuntimeComponent } from "../../runtime/catalog.js";
import type { ComponentFiles, RunnableSource } from "../../services.js";
import type { Db } from "../db.js";
import { prepared } from "../prepared.js";

// Read for every batch of a source's runs (hot path: built once).
const sourceById = prepared((db, $: { id: string }) =>
  db
    .selectFrom("sources")
    .innerJoin("users", "users.id", "sources.user_id")
    .select([
      "sources.id",
      "sources.user_id",
      "sources.component_id",
      "sources.active",
      "sources.configured_props",
      "users.disabled as owner_disabled",
    ])
    .where("sources.id", "=", $.id),
);
const componentById = prepared((db, $: { id: string }) =>
  db.selectFrom("components").select(["id", "code", "files", "props", "meta", "component_url"]).where("id", "=", $.id),
);

export class RuntimeCatalogRepo implements RuntimeCatalog {
  constructor(private readonly db: Db) {}

  async source(sourceId: string): Promise<RunnableSource | undefined> {
    const row = await sourceById.first(this.db, { id: sourceId });
    if (!row) return undefined;
    return {
      id: row.id,
      userId: row.user_id,
      componentId: row.component_id,
      active: row.active === 1,
      configuredProps: parse<Record<string, unknown>>(row.configured_props, {}),
      ownerDisabled: Number(row.owner_disabled) === 1,
    };
  }

  async component(componentId: string): Promise<RuntimeComponent | undefined> {
    const row = await componentById.first(this.db, { id: componentId });
    if (!row) return undefined;
    const meta = parse<{ hooks?: RuntimeComponent["hooks"]; dedupe?: RuntimeComponent["dedupe"]; hasRun?: boolean }>(row.meta, {});
    return {
      id: row.id,
      code: row.code,
      files: row.files ? parse<ComponentFiles | undefined>(row.files, undefined) : undefined,
      props: parse<PropDescriptor[]>(row.props, []),
      hooks: meta.hooks ?? ["deploy", "activate", "deactivate"],
      dedupe: meta.dedupe ?? undefined,
      hasRun: meta.hasRun ?? true,
      url: row.component_url,
    };
  }
}

function parse<T>(text: string | null, fallback: T): T {
  if (!text) return fallback;
  try {
    return JSON.parse(text) as T;
  } catch {
    return fallback;
  }
}
