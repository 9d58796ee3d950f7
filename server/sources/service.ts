/**
 * Sources: create, update, delete and read a user's deployed components. The component comes
 * from `component_id`, else `component_code`, else `component_url`, else `key` (the account's,
 * then the registry's). configured_props are validated against its props. Writes call the
 * runtime's SourceLifecycle; when a hook fails the write is undone, so the request changes nothing.
 */
import { newId, slugify } from "../../shared/ids.js";
import { ERROR_CODES, type PropDescriptor, type Source } from "../../shared/resources/index.js";
import { componentProps, type ComponentService } from "../components/service.js";
import { InvalidRequestError, NotFoundError } from "../errors.js";
import type { RunnableSource, SourceLifecycle } from "../services.js";
import { nextCreatedMs, nowSeconds } from "../store/repos/clock.js";
import type { ComponentRow, NewComponentRow } from "../store/repos/components.js";
import { isUniqueViolation } from "../store/repos/errors.js";
import type { PageRequest, PageRows } from "../store/repos/paging.js";
import type { SourceRow, SourcesRepo } from "../store/repos/sources.js";
import { dataStoreIdsOf, validateConfiguredProps } from "./props.js";
import type { AccountReferences } from "../accounts/references.js";
import type { Requester } from "../users/requester.js";

export interface SourceInput {
  component_id?: string | undefined;
  component_code?: string | undefined;
  component_url?: string | undefined;
  key?: string | undefined;
  name?: string | undefined;
  configured_props?: Record<string, unknown> | undefined;
  active?: boolean | undefined;
}

/** Called after a source is deleted (its events and subscriptions go with it). */
export type SourceDeletedListener = (source: RunnableSource) => Promise<void>;

export interface SourceServiceDeps {
  repo: SourcesRepo;
  components: ComponentService;
  /** The runtime's hooks; undefined when no runtime is wired. */
  lifecycle: SourceLifecycle | undefined;
  /** Base of endpoint URLs, known once the server listens. */
  publicUrl: () => string;
  /** Binds app props to connected accounts (inline credentials become accounts). */
  accounts: AccountReferences;
  log?: { warn(obj: object, msg: string): void };
  /** Whether a data store is the user's (data_store props name only the owner's stores). */
  ownsDataStore?: (userId: string, id: string) => Promise<boolean>;
}

export class SourceService {
  private readonly deletedListeners: SourceDeletedListener[] = [];
  private readonly createdListeners: Array<(userId: string, sourceId: string) => Promise<void>> = [];

  constructor(private readonly deps: SourceServiceDeps) {}

  /** Registers cleanup to run after a source is deleted (events, subscriptions, ...). */
  onDeleted(listener: SourceDeletedListener): void {
    this.deletedListeners.push(listener);
  }

  /** Registers a step to run after a source is created (auto-subscriptions). */
  onCreated(listener: (userId: string, sourceId: string) => Promise<void>): void {
    this.createdListeners.push(listener);
  }

  async create(requester: Requester, input: SourceInput): Promise<Source> {
    const userId = requester.userId;
    const { component, newComponent } = await this.resolveComponent(requester, input);
    const id = newId("source");
    const configured = validateConfiguredProps(componentProps(component), input.configured_props ?? {}, {
      publicUrl: this.deps.publicUrl(),
      sourceId: id,
    });
    await this.checkDataStores(userId, componentProps(component), configured);
    const now = nowSeconds();
    const wanted = input.name ?? slugify(component.name);
    const row: SourceRow = {
      id,
      user_id: userId,
      component_id: component.id,
      name: wanted,
      name_slug: "",
      configured_props: JSON.stringify(configured),
      active: 1,
      created_ms: nextCreatedMs(),
      created_at: now,
      updated_at: now,
    };
    const props = componentProps(component);
    await this.withFreeSlug(row, wanted, input.name === undefined, async (r) => {
      await this.deps.repo.transaction(async (trx) => {
        if (newComponent) await this.deps.components.save(newComponent, trx);
        const bound = await this.deps.accounts.bind(trx, { userId, id, name: r.name }, props, configured);
        r.configured_props = JSON.stringify(bound);
        await this.deps.repo.insert(r, trx);
      });
    });
    try {
      await this.deps.lifecycle?.created(runnable(row));
    } catch (err) {
      await this.deps.repo.transaction(async (trx) => {
        await this.deps.repo.delete(userId, row.id, trx);
        await this.deps.accounts.holderDeleted(trx, userId, row.id);
        if (newComponent) await this.deps.components.discard(newComponent, trx);
      });
      throw err;
    }
    for (const listener of this.createdListeners) await listener(userId, row.id);
    return present(row);
  }

  /** A data_store prop naming a store that is not the user's: 400, as an unknown id would be. */
  private async checkDataStores(userId: string, props: PropDescriptor[], configured: Record<string, unknown>): Promise<void> {
    const owns = this.deps.ownsDataStore;
    if (!owns) return;
    const details = [];
    for (const [name, storeId] of dataStoreIdsOf(props, configured)) {
      if (!(await owns(userId, storeId)))
        details.push({ path: `configured_props.${name}`, message: `no data store ${storeId} of yours` });
    }
    if (details.length > 0)
      throw new InvalidRequestError(`invalid ${details[0]!.path}: ${details[0]!.message}`, ERROR_CODES.validation, details);
  }

  async update(requester: Requester, id: string, input: SourceInput): Promise<Source> {
    const userId = requester.userId;
    const before = await this.findOwnRow(userId, id);
    const { component, newComponent } = await this.resolveComponent(requester, input, before.component_id);
    const props = componentProps(component);
    // Props not sent keep their values, as far as the (possibly new) component still has them.
    const previous = JSON.parse(before.configured_props) as Record<string, unknown>;
    const names = new Set(props.map((p) => p.name));
    const kept = Object.fromEntries(Object.entries(previous).filter(([k]) => names.has(k)));
    const configured = validateConfiguredProps(props, input.configured_props ?? kept, {
      publicUrl: this.deps.publicUrl(),
      sourceId: id,
    });
    await this.checkDataStores(userId, props, configured);
    const after: SourceRow = {
      ...before,
      component_id: component.id,
      name: input.name ?? before.name,
      configured_props: JSON.stringify(configured),
      active: input.active === false ? 0 : 1,
      updated_at: nowSeconds(),
    };
    const renamed = input.name !== undefined && input.name !== before.name;
    // What the source's accounts were, to put back if a hook fails (a failed request changes nothing).
    const accountsBefore = await this.deps.accounts.snapshot(userId, id);
    const write = async (r: SourceRow) =>
      this.deps.repo.transaction(async (trx) => {
        if (newComponent) await this.deps.components.save(newComponent, trx);
        const bound = await this.deps.accounts.bind(trx, { userId, id, name: r.name }, props, configured);
        r.configured_props = JSON.stringify(bound);
        await this.deps.repo.replace(r, trx);
      });
    if (renamed) await this.withFreeSlug(after, after.name, false, write, before.name_slug);
    else await write(after);
    try {
      await this.deps.lifecycle?.updated(runnable(before), runnable(after));
    } catch (err) {
      await this.deps.repo.transaction(async (trx) => {
        await this.deps.repo.replace(before, trx);
        await this.deps.accounts.restore(trx, userId, id, accountsBefore);
        if (newComponent) await this.deps.components.discard(newComponent, trx);
      });
      // The runtime may have deactivated the old configuration already: bring it back (activate
      // and timer again, when it was active), as if the source were switched on.
      if (before.active === 1) {
        await this.deps.lifecycle
          ?.updated({ ...runnable(before), active: false }, runnable(before))
          .catch((e: unknown) =>
            this.deps.log?.warn(
              { err: e, sourceId: id },
              "could not re-activate a source after a failed update",
            ),
          );
      }
      throw err;
    }
    return present(after);
  }

  /**
   * Deletes the source. The runtime deactivates it first; a failing deactivate hook is logged
   * but does not keep the source alive (a broken source must stay deletable).
   */
  async delete(userId: string, id: string): Promise<void> {
    const row = await this.findOwnRow(userId, id);
    try {
      await this.deps.lifecycle?.deleted(runnable(row));
    } catch (err) {
      this.deps.log?.warn({ err, sourceId: id }, "deactivate hook failed while deleting a source");
    }
    await this.deps.repo.transaction(async (trx) => {
      await this.deps.repo.delete(userId, id, trx);
      await this.deps.accounts.holderDeleted(trx, userId, id);
    });
    for (const listener of this.deletedListeners) {
      await listener(runnable(row)).catch((err: unknown) =>
        this.deps.log?.warn({ err, sourceId: id }, "cleanup after deleting a source failed"),
      );
    }
  }

  async get(userId: string, id: string): Promise<Source> {
    return present(await this.findOwnRow(userId, id));
  }

  async list(userId: string, page: PageRequest): Promise<PageRows<Source>> {
    const { rows, totalCount } = await this.deps.repo.listOwn(userId, page);
    return { rows: rows.map(present), totalCount };
  }

  /** A source as the runtime sees it, whoever owns it; undefined when it does not exist. */
  async runnable(id: string): Promise<RunnableSource | undefined> {
    const row = await this.deps.repo.findById(id);
    return row ? runnable(row) : undefined;
  }

  private async findOwnRow(userId: string, id: string): Promise<SourceRow> {
    const row = await this.deps.repo.findOwn(userId, id);
    if (!row) throw new NotFoundError(`source ${id}`);
    return row;
  }

  /** The component a request names, by precedence; a new one (from code or URL) is not saved yet. */
  private async resolveComponent(
    requester: Requester,
    input: SourceInput,
    currentComponentId?: string,
  ): Promise<{ component: ComponentRow; newComponent: NewComponentRow | undefined }> {
    const c = this.deps.components;
    const userId = requester.userId;
    if (input.component_id) {
      // An update naming the component the source already runs (a registry one, owned by the
      // system user) keeps it: PUT needs a component reference, and this is the source's own.
      if (currentComponentId !== undefined && input.component_id === currentComponentId) {
        const current = await c.findById(currentComponentId);
        if (current) return { component: current, newComponent: undefined };
      }
      return { component: await c.findOwn(userId, input.component_id), newComponent: undefined };
    }
    if (input.component_code !== undefined || input.component_url !== undefined) {
      const loaded = await c.load(
        {
          component_code: input.component_code,
          component_url: input.component_url,
        },
        requester,
      );
      const row = c.newRow(userId, loaded);
      return { component: row as ComponentRow, newComponent: row };
    }
    if (input.key) {
      const found = (await c.findOwnByKey(userId, input.key)) ?? (await c.findPublished(input.key, requester));
      if (!found) throw new NotFoundError(`component ${input.key}`);
      return { component: found, newComponent: undefined };
    }
    throw new InvalidRequestError("one of component_id, component_code, component_url or key is required");
  }

  /**
   * Writes the row with a name_slug free in the account: the slug of `name`, else (when the
   * name was not chosen by the user) `-2`, `-3`, ... A user-chosen name that is taken gets the
   * suffix too. Retries when a concurrent request takes the slug first.
   */
  private async withFreeSlug(
    row: SourceRow,
    name: string,
    defaultName: boolean,
    write: (r: SourceRow) => Promise<void>,
    ownSlug?: string,
  ): Promise<void> {
    const base = slugify(name);
    const attempts = 20;
    for (let attempt = 0; attempt < attempts; attempt++) {
      // Racers that lost compute the same next slug: spread their retries a little.
      if (attempt > 0) await new Promise((r) => setTimeout(r, Math.random() * 10 * attempt));
      const taken = new Set(await this.deps.repo.slugsLike(row.user_id, base));
      if (ownSlug) taken.delete(ownSlug);
      let slug = base;
      for (let n = 2; taken.has(slug); n++) slug = `${base}-${n}`;
      row.name_slug = slug;
      if (defaultName) row.name = slug;
      try {
        await write(row);
        return;
      } catch (err) {
        if (!isUniqueViolation(err) || attempt === attempts - 1) throw err;
      }
    }
  }
}

export function runnable(row: SourceRow): RunnableSource {
  return {
    id: row.id,
    userId: row.user_id,
    componentId: row.component_id,
    active: row.active === 1,
    configuredProps: JSON.parse(row.configured_props) as Record<string, unknown>,
  };
}

export function present(row: SourceRow): Source {
  return {
    id: row.id,
    user_id: row.user_id,
    component_id: row.component_id,
    configured_props: JSON.parse(row.configured_props) as Record<string, unknown>,
    active: row.active === 1,
    created_at: row.created_at,
    updated_at: row.updated_at,
    name: row.name,
    name_slug: row.name_slug,
  };
}
