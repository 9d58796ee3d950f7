/**
 * Components: load (fetch when given a URL, then describe in the sandbox: this process never
 * evaluates component code), save, look up by id or key, publish to the registry, list.
 */
import crypto from "node:crypto";
import { newId } from "../../shared/ids.js";
import {
  accountIdOf,
  ERROR_CODES,
  referencesAccounts,
  type Component,
  type ComponentSearch,
  type PropOptions,
  type PropOptionsBody,
} from "../../shared/resources/index.js";
import { ConflictError, InvalidRequestError, NotFoundError, UnavailableError } from "../errors.js";
import {
  ComponentLoadError,
  CredentialsError,
  PropOptionsError,
  type ComponentDescriber,
  type CredentialOpener,
  type ComponentDescription,
  type ComponentFiles,
  type PropOptionsRunner,
} from "../services.js";
import { nextCreatedMs, nowSeconds } from "../store/repos/clock.js";
import {
  KeyTakenError,
  type ComponentRow,
  type ComponentsRepo,
  type NewComponentRow,
} from "../store/repos/components.js";
import type { PageRequest, PageRows } from "../store/repos/paging.js";
import type { Db } from "../store/db.js";
import { ComponentFetchError } from "./fetch.js";
import { NpmComponents } from "./npm-registry.js";
import { componentFiles, present } from "./present.js";
import { searchKnown } from "./known-search.js";

export { componentFiles, componentProps, present } from "./present.js";
import type { Requester } from "../users/requester.js";

export interface ComponentInput {
  component_code?: string | undefined;
  component_url?: string | undefined;
}

/** A component read and described, not saved yet. */
export interface LoadedComponent {
  code: string;
  files: ComponentFiles | undefined;
  url: string | undefined;
  description: ComponentDescription;
}

/** What the runtime needs beyond the API fields (stored as `meta`). */
interface ComponentMeta {
  dedupe: ComponentDescription["dedupe"];
  hooks: ComponentDescription["hooks"];
  hasRun: boolean;
  type?: "action" | "source" | undefined;
}

export const sha256Hex = (text: string) => crypto.createHash("sha256").update(text, "utf8").digest("hex");

export class ComponentService {
  /** The vendor's npm packages as a registry, and the system user its components are saved under. */
  private npm: { components: NpmComponents; ownerId: string } | undefined;
  /** npm lookups under way, by key: a second request for the same key waits for the first. */
  private readonly npmLookups = new Map<string, Promise<ComponentRow | undefined>>();

  constructor(
    private readonly repo: ComponentsRepo,
    private readonly describer: ComponentDescriber,
    /** Reads a component_url (see fetch.ts; app.ts gives it the network policy). */
    private readonly fetchCode: (url: string) => Promise<{ code: string; files: ComponentFiles }>,
    /** Runs a prop's `options()` in the sandbox (runtime/prop-options.ts). */
    private readonly optionsRunner?: PropOptionsRunner,
    /** Opens the connected accounts that the configured props reference (`{authProvisionId}`). */
    private readonly credentials?: CredentialOpener,
  ) {}

  /** Reads the code (component_code wins; the URL is then only metadata) and describes it. */
  async load(input: ComponentInput, requester?: Requester): Promise<LoadedComponent> {
    let code = input.component_code;
    let files: ComponentFiles | undefined;
    if (code === undefined) {
      if (!input.component_url)
        throw new InvalidRequestError("one of component_code or component_url is required");
      try {
        ({ code, files } = await this.fetchCode(input.component_url));
      } catch (err) {
        if (err instanceof ComponentFetchError)
          throw new InvalidRequestError(err.message, ERROR_CODES.componentFetchFailed);
        throw err;
      }
      if (files && Object.keys(files).length === 0) files = undefined;
    }
    const description = await this.describer.describe(code, files, requester);
    return { code, files, url: input.component_url, description };
  }

  /** The row a loaded component is saved as, for `userId`. */
  newRow(userId: string, c: LoadedComponent): NewComponentRow {
    const now = nowSeconds();
    const meta: ComponentMeta = {
      dedupe: c.description.dedupe,
      hooks: c.description.hooks,
      hasRun: c.description.hasRun,
      type: c.description.type,
    };
    return {
      id: newId("component"),
      user_id: userId,
      key: c.description.key ?? null,
      code: c.code,
      code_hash: sha256Hex(c.code),
      name: c.description.name,
      version: c.description.version,
      description: c.description.description ?? null,
      component_url: c.url ?? null,
      files: c.files ? JSON.stringify(c.files) : null,
      props: JSON.stringify(c.description.props),
      meta: JSON.stringify(meta),
      published: 0,
      created_ms: nextCreatedMs(),
      created_at: now,
      updated_at: now,
    };
  }

  /** Saves a row made by `newRow`. Keys are per account: this conflicts with nobody. */
  async save(row: NewComponentRow, db?: Db): Promise<void> {
    await this.repo.insert(row, db);
  }

  /** `POST /components`. */
  async create(requester: Requester, input: ComponentInput): Promise<Component> {
    const loaded = await this.load(input, requester);
    const row = this.newRow(requester.userId, loaded);
    await this.save(row);
    return present(row as ComponentRow);
  }

  /**
   * `GET /components/{key|id}`: the user's own component by id, or its newest with that key.
   * A published component is also readable by id (it is public at the registry anyway), so a
   * source made from the registry can show its component.
   */
  async get(userId: string, keyOrId: string): Promise<Component> {
    if (keyOrId.startsWith("sc_")) {
      const row = await this.repo.findById(keyOrId);
      if (row && (row.user_id === userId || row.published === 1)) return present(row);
      throw new NotFoundError(`component ${keyOrId}`);
    }
    return present(await this.findOwn(userId, keyOrId));
  }

  /**
   * `POST /components/{id}/props/{prop}/options`: the prop's choices, for a component the user
   * may read (their own, by id or key, or a published one by id). 404 for an unknown prop, 400
   * for a prop without options or an options() that throws.
   */
  async propOptions(requester: Requester, keyOrId: string, prop: string, body: PropOptionsBody): Promise<PropOptions> {
    const userId = requester.userId;
    const row = keyOrId.startsWith("sc_")
      ? await this.repo.findById(keyOrId).then((r) => (r && (r.user_id === userId || r.published === 1) ? r : undefined))
      : await this.repo.findOwnByKey(userId, keyOrId);
    if (!row) throw new NotFoundError(`component ${keyOrId}`);
    if (!this.optionsRunner) throw new InvalidRequestError("prop options need the runtime, which this server runs without");
    const configuredProps = await this.openAccounts(userId, body.configured_props ?? {});
    try {
      return await this.optionsRunner.options(row.code, componentFiles(row), {
        requester,
        prop,
        configuredProps,
        prevContext: body.prev_context ?? {},
        query: body.query,
        page: body.page ?? 0,
      });
    } catch (err) {
      if (!(err instanceof PropOptionsError)) throw err;
      if (err.code === "no_such_prop") throw new NotFoundError(`prop ${prop} of component ${keyOrId}`);
      throw new InvalidRequestError(err.message, err.code === "no_options" ? "no_options" : ERROR_CODES.propOptionsFailed);
    }
  }

  /** The props with the caller's accounts opened: another user's or an unknown account is a 404. */
  private async openAccounts(userId: string, configured: Record<string, unknown>): Promise<Record<string, unknown>> {
    if (!this.credentials || !referencesAccounts(configured)) return configured;
    try {
      return (await this.credentials.open(userId, configured)).props;
    } catch (err) {
      if (err instanceof CredentialsError && err.code === "account_not_found") throw new NotFoundError(`account ${accountIdIn(configured)}`);
      if (err instanceof CredentialsError) throw new InvalidRequestError(err.message, err.code);
      throw err;
    }
  }

  async findOwn(userId: string, keyOrId: string): Promise<ComponentRow> {
    const row = keyOrId.startsWith("sc_")
      ? await this.repo.findOwnById(userId, keyOrId)
      : await this.repo.findOwnByKey(userId, keyOrId);
    if (!row) throw new NotFoundError(`component ${keyOrId}`);
    return row;
  }

  async findOwnByKey(userId: string, key: string): Promise<ComponentRow | undefined> {
    return this.repo.findOwnByKey(userId, key);
  }

  /** Undoes `save` of a component nobody uses yet (a source write that failed afterwards). */
  async discard(row: NewComponentRow, db?: Db): Promise<void> {
    await this.repo.deleteUnused(row.id, row.user_id, db);
  }

  /** The component behind a source, whoever published it (for the runtime). */
  async findById(id: string): Promise<ComponentRow | undefined> {
    return this.repo.findById(id);
  }

  /** `GET /components/registry/{key}`. */
  async getPublished(key: string, requester: Requester): Promise<Component> {
    const row = await this.findPublished(key, requester);
    if (row) return present(row);
    // Not a key: name the nearest keys the server knows ("http" → http-new-requests).
    const near = (await this.search(requester, key, 3, { fetchApp: false })).data.map((m) => m.key);
    const err = new NotFoundError(`registry component ${key}`);
    if (near.length > 0) err.message += `; did you mean ${near.join(", ")}?`;
    throw err;
  }

  /**
   * Turns on the vendor's npm packages as a fallback registry (HEADWATER_NPM_COMPONENTS):
   * components found there are saved once, published, under `ownerId` (the system user).
   */
  useNpmComponents(components: NpmComponents, ownerId: string): void {
    this.npm = { components, ownerId };
  }

  /**
   * The registry's component for a key: a published or built-in one, else the vendor's npm
   * package's (its install charged to `requester`).
   */
  async findPublished(key: string, requester: Requester): Promise<ComponentRow | undefined> {
    const row = await this.repo.findPublishedByKey(key);
    if (row || !this.npm) return row;
    let lookup = this.npmLookups.get(key);
    if (!lookup) {
      lookup = this.fromNpm(this.npm, key, requester).finally(() => this.npmLookups.delete(key));
      this.npmLookups.set(key, lookup);
    }
    return lookup;
  }

  private async fromNpm(npm: { components: NpmComponents; ownerId: string }, key: string, requester: Requester): Promise<ComponentRow | undefined> {
    let found;
    try {
      found = await npm.components.find(key, requester);
    } catch (err) {
      if (err instanceof ComponentFetchError)
        throw new InvalidRequestError(err.message, ERROR_CODES.componentFetchFailed);
      throw err;
    }
    if (!found) return undefined;
    // Saved once: the next lookup finds it in the registry (and so does a restarted server).
    // Two instances racing save it twice, harmlessly: the newest is the registry's.
    const row = { ...this.newRow(npm.ownerId, found), published: 1 };
    await this.save(row);
    return row as ComponentRow;
  }

  /**
   * Before a key no user holds is published: when the vendor's npm packages are a registry and
   * the key can name one of them, looks it up, so that a vendor component with this key is saved
   * (as the system's) and the claim refuses the key. Vendor rows are otherwise saved on first
   * lookup only: a user publishing the key before anyone looked it up would take it over, and
   * every user's deploy by that key would get their code. A package that cannot be checked now
   * (npm unreachable) is a 503 to retry: refusing is safer than guessing, and it lasts only as
   * long as npm does not answer (a server without network sets HEADWATER_NPM_COMPONENTS=0). A
   * package without the key, or no such package, leaves the key free.
   */
  private async resolveVendorKey(key: string, requester: Requester): Promise<void> {
    if (!this.npm || !NpmComponents.packageFor(key)) return;
    if (await this.repo.registryHolder(key)) return;
    try {
      await this.findPublished(key, requester);
    } catch (err) {
      if (err instanceof ComponentLoadError)
        throw new ConflictError(`component key "${key}" belongs to the vendor's package ${NpmComponents.packageFor(key)}`);
      if (err instanceof InvalidRequestError && err.code === ERROR_CODES.componentFetchFailed)
        throw new UnavailableError(
          `cannot publish "${key}" now: the vendor's package ${NpmComponents.packageFor(key)}, which may hold this key, could not be checked (${err.message}); try again later`,
          ERROR_CODES.componentFetchFailed,
        );
      throw err;
    }
  }

  /** `POST /components/{id}/publish`: visible to every user at the registry, by key. */
  async publish(requester: Requester, id: string): Promise<Component> {
    const row = await this.repo.findOwnById(requester.userId, id);
    if (!row) throw new NotFoundError(`component ${id}`);
    if (!row.key)
      throw new InvalidRequestError("only a component with a key can be published (the registry is by key)");
    await this.resolveVendorKey(row.key, requester);
    const now = nowSeconds();
    try {
      await this.repo.publish({ id: row.id, user_id: row.user_id, key: row.key }, now);
    } catch (err) {
      throw registryConflict(err);
    }
    return present({ ...row, published: 1, updated_at: now });
  }

  /** The user's own components of type action, newest first (one per key). */
  async listOwnActions(userId: string): Promise<ComponentRow[]> {
    const seen = new Set<string>();
    return (await this.repo.listOwnActions(userId)).filter((r) => {
      const k = r.key ?? r.id;
      if (seen.has(k)) return false;
      seen.add(k);
      return true;
    });
  }

  /** The vendor's actions of an app's package (GET /actions), or undefined when npm lookups are off or there is no such package. */
  async vendorActions(app: string, requester: Requester) {
    if (!this.npm) return undefined;
    try {
      return await this.npm.components.actions(app, requester);
    } catch (err) {
      if (err instanceof ComponentFetchError) throw new InvalidRequestError(err.message, ERROR_CODES.componentFetchFailed);
      throw err;
    }
  }

  /**
   * `GET /components/search`: the components the server knows whose key or name matches `q`
   * (search.ts), best first: the registry's (published, built-in, the vendor's looked up
   * before), then the sources of the vendor packages already fetched. A query that is one word
   * naming an app (`github`) also fetches that app's package by its exact name and lists its
   * sources; what came of it is `app` (a package npm does not have is no error: the answer says so).
   */
  async search(requester: Requester, q: string, limit: number, opts: { fetchApp?: boolean } = {}): Promise<ComponentSearch> {
    return searchKnown(
      { published: () => this.repo.listPublishedSummaries(), npm: this.npm?.components },
      requester,
      q,
      limit,
      opts,
    );
  }

  async list(userId: string, page: PageRequest): Promise<PageRows<Component>> {
    const { rows, totalCount } = await this.repo.listOwn(userId, page);
    return { rows: rows.map(present), totalCount };
  }

  /**
   * Built-in registry components: saved once per version (by code hash) under `ownerId`, and
   * published. Run at start; a built-in whose code has not changed costs one query.
   */
  async ensureBuiltins(ownerId: string, codes: string[]): Promise<void> {
    for (const code of codes) {
      if (await this.repo.findOwnByHash(ownerId, sha256Hex(code))) continue;
      const loaded = await this.load({ component_code: code });
      if (!loaded.description.key)
        throw new Error(`built-in component "${loaded.description.name}" has no key`);
      await this.save({ ...this.newRow(ownerId, loaded), published: 1 });
    }
  }
}

/** A registry key held by another user is a 409 (decisions.md, Components). */
function registryConflict(err: unknown): unknown {
  if (err instanceof KeyTakenError)
    return new ConflictError(`component key "${err.key}" is already published to the registry by another user`);
  return err;
}

/** The first account a set of props references (for a 404's message). */
function accountIdIn(configured: Record<string, unknown>): string {
  for (const v of Object.values(configured)) {
    const id = accountIdOf(v);
    if (id) return id;
  }
  return "";
}
