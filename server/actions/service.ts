/**
 * Actions (decisions.md "Actions"): finding them (the account's own components of type action
 * first, then the vendor's `@pipedream/<app>` package), running one in the sandbox as an
 * invocation of the user, its props' options, and resolving a workflow step's action.
 * Every lookup is scoped to the caller: another user's unpublished component is a 404.
 */
import {
  accountIdOf,
  ERROR_CODES,
  type Action,
  type ActionOptions,
  type ActionOptionsBody,
  type ActionResult,
  type PropDescriptor,
  type RunActionBody,
} from "../../shared/resources/index.js";
import { componentFiles, componentProps, type ComponentService } from "../components/service.js";
import { NpmComponents } from "../components/npm-registry.js";
import { InvalidRequestError, NotFoundError } from "../errors.js";
import type { RunAction } from "../runtime/actions.js";
import { redactorFor, type Redactor } from "../secrets/redact.js";
import { CredentialsError, PropOptionsError, type ComponentDescription, type ComponentFiles, type CredentialOpener, type PropOptionsRunner } from "../services.js";
import type { ComponentRow } from "../store/repos/components.js";
import type { Requester } from "../users/requester.js";
import { actionProps } from "./props.js";

/** An action ready to run: its code and what its props are. */
export interface ResolvedAction {
  code: string;
  files: ComponentFiles | undefined;
  props: PropDescriptor[];
  /** The saved component (absent for component_code). */
  row?: ComponentRow;
}

type Described = Pick<ComponentDescription, "key" | "name" | "version" | "description" | "props">;

export interface ActionServiceDeps {
  components: ComponentService;
  run: RunAction;
  options?: PropOptionsRunner;
  credentials?: CredentialOpener;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const metaType = (row: ComponentRow) => (JSON.parse(row.meta) as { type?: string }).type;

export class ActionService {
  constructor(private readonly deps: ActionServiceDeps) {}

  /** `GET /actions?app=&q=`: the account's own actions first, then the app package's. */
  async list(requester: Requester, query: { app?: string | undefined; q?: string | undefined }): Promise<Action[]> {
    const { app, q } = query;
    const own = (await this.deps.components.listOwnActions(requester.userId))
      .map((row) => presentAction(rowDescription(row), appOf(row.key, componentProps(row)), row.id))
      .filter((a) => app === undefined || a.app === app || a.props.some((p) => p.app === app));
    let vendor: Action[] = [];
    if (app !== undefined) {
      const found = await this.deps.components.vendorActions(app, requester);
      if (!found && own.length === 0) throw new NotFoundError(`app ${app}`);
      const ownKeys = new Set(own.map((a) => a.key));
      vendor = (found?.actions ?? []).map((a) => presentAction(a.description, app)).filter((a) => !ownKeys.has(a.key));
    }
    const needle = q?.trim().toLowerCase();
    const all = [...own, ...vendor];
    if (!needle) return all;
    return all.filter((a) => [a.key, a.name, a.description ?? ""].some((t) => t.toLowerCase().includes(needle)));
  }

  /** `GET /actions/{key}`. */
  async get(requester: Requester, key: string): Promise<Action> {
    const { row } = await this.resolve(requester, { key });
    return presentAction(rowDescription(row!), appOf(row!.key, componentProps(row!)), row!.user_id === requester.userId ? row!.id : undefined);
  }

  /**
   * The action a request names: `key` (the account's own component of type action, else the
   * registry's, else the vendor's package), `component_id` (the account's own, or a published
   * one) or `component_code` (described in the sandbox, not saved).
   */
  async resolve(requester: Requester, ref: { key?: string | undefined; component_id?: string | undefined; component_code?: string | undefined }): Promise<ResolvedAction> {
    if (ref.component_code !== undefined) {
      const loaded = await this.deps.components.load({ component_code: ref.component_code }, requester);
      if (!loaded.description.hasRun) throw new InvalidRequestError("an action needs a run method", ERROR_CODES.invalidComponent);
      return { code: loaded.code, files: loaded.files, props: loaded.description.props };
    }
    let row: ComponentRow | undefined;
    if (ref.component_id !== undefined) {
      const id = ref.component_id;
      row = id.startsWith("sc_") ? await this.deps.components.findById(id) : undefined;
      if (!row || (row.user_id !== requester.userId && row.published !== 1)) throw new NotFoundError(`component ${id}`);
    } else {
      const key = ref.key ?? "";
      const own = await this.deps.components.findOwnByKey(requester.userId, key);
      row = own && metaType(own) === "action" ? own : await this.deps.components.findPublished(key, requester);
      // A source's key names no action (its run expects an event, not `{steps, $}`).
      if (!row || metaType(row) !== "action") throw new NotFoundError(`action ${key}`);
    }
    return { code: row.code, files: componentFiles(row), props: componentProps(row), row };
  }

  /** `POST /actions/run`: a thrown error is in the result, not an HTTP error. */
  async run(requester: Requester, body: RunActionBody): Promise<ActionResult> {
    const action = await this.resolve(requester, body);
    const props = actionProps(action.props, body.configured_props ?? {});
    const opened = await this.open(requester.userId, props);
    return this.deps.run({ ownerId: requester.userId, code: action.code, files: action.files, props: opened.props, redactor: opened.redactor, url: action.row?.component_url });
  }

  /** `POST /actions/options`: a prop's choices, from its `options()` (the prop-options runner). */
  async options(requester: Requester, body: ActionOptionsBody): Promise<ActionOptions> {
    const action = await this.resolve(requester, body);
    if (!this.deps.options) throw new InvalidRequestError("prop options need the runtime, which this server runs without");
    const opened = await this.open(requester.userId, body.configured_props ?? {});
    try {
      const answer = await this.deps.options.options(action.code, action.files, {
        requester,
        prop: body.prop_name,
        configuredProps: opened.props,
        prevContext: body.prev_context ?? {},
        query: body.query,
        page: body.page ?? 0,
      });
      return { options: answer.data, context: answer.context ?? null };
    } catch (err) {
      if (!(err instanceof PropOptionsError)) throw err;
      if (err.code === "no_such_prop") throw new NotFoundError(`prop ${body.prop_name}`);
      throw new InvalidRequestError(err.message, err.code === "no_options" ? "no_options" : ERROR_CODES.propOptionsFailed);
    }
  }

  /**
   * Accounts opened for one run (another user's or an unknown one is a 404); inline `$auth`
   * values are used as given, never stored, and hidden from the output like an account's.
   */
  private async open(userId: string, props: Record<string, unknown>): Promise<{ props: Record<string, unknown>; redactor: Redactor | undefined }> {
    const inline = Object.values(props).flatMap((v) => (isObject(v) && isObject(v.$auth) ? [v.$auth] : []));
    let opened = { props, redactor: undefined as Redactor | undefined };
    if (this.deps.credentials && Object.values(props).some((v) => accountIdOf(v) !== undefined)) {
      try {
        opened = await this.deps.credentials.open(userId, props);
      } catch (err) {
        if (err instanceof CredentialsError && err.code === "account_not_found") {
          const id = Object.values(props).map(accountIdOf).find(Boolean);
          throw new NotFoundError(`account ${id ?? ""}`);
        }
        if (err instanceof CredentialsError) throw new InvalidRequestError(err.message, err.code);
        throw err;
      }
    }
    const extra = redactorFor(inline);
    return { props: opened.props, redactor: combine(opened.redactor, extra) };
  }
}

function combine(a: Redactor | undefined, b: Redactor | undefined): Redactor | undefined {
  if (!a || !b) return a ?? b;
  return { text: (s) => b.text(a.text(s)), json: (v) => b.json(a.json(v)), emitted: (v) => b.emitted(a.emitted(v)) };
}

function rowDescription(row: ComponentRow): Described {
  return { key: row.key ?? undefined, name: row.name, version: row.version, description: row.description ?? undefined, props: componentProps(row) };
}

/** The app an action belongs to: its key's app part, else its first app prop's. */
function appOf(key: string | null, props: PropDescriptor[]): string | null {
  const pkg = key ? NpmComponents.packageFor(key) : undefined;
  if (pkg) return pkg.slice("@pipedream/".length);
  return props.find((p) => p.type === "app")?.app ?? null;
}

export function presentAction(d: Described, app: string | null, componentId?: string): Action {
  return {
    key: d.key ?? componentId ?? "",
    name: d.name,
    description: d.description ?? null,
    version: d.version,
    app,
    props: d.props.map((p) => ({
      name: p.name,
      type: p.type,
      ...(p.label !== undefined ? { label: p.label } : {}),
      ...(p.description !== undefined ? { description: p.description } : {}),
      ...(p.optional !== undefined ? { optional: p.optional } : {}),
      ...((p.options && p.options.length > 0) || p.remoteOptions ? { options: true } : {}),
      ...(p.app !== undefined ? { app: p.app } : {}),
      ...(p.default !== undefined ? { default: p.default } : {}),
    })),
    ...(componentId ? { component_id: componentId } : {}),
  };
}
