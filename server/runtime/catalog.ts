/**
 * What the runtime reads about sources and components, and how it turns a stored component
 * into something runnable. The store implementation lives in store/repos/runtime-catalog.ts.
 */
import type { PropDescriptor } from "../../shared/resources/index.js";
import type { ComponentDescription, ComponentFiles, RunnableSource } from "../services.js";

export interface RuntimeComponent {
  id: string;
  code: string;
  files: ComponentFiles | undefined;
  props: PropDescriptor[];
  hooks: ComponentDescription["hooks"];
  dedupe: ComponentDescription["dedupe"];
  hasRun: boolean;
  /** Where it came from (`npm:@pipedream/...` for the vendor's: runs use that package's dependencies). */
  url?: string | null | undefined;
}

export interface RuntimeCatalog {
  /** Any source by id (the runtime is not a user: ownership was checked by the caller). */
  source(sourceId: string): Promise<RunnableSource | undefined>;
  component(componentId: string): Promise<RuntimeComponent | undefined>;
}

export const TIMER_TYPE = "$.interface.timer";
export const HTTP_TYPE = "$.interface.http";

/** A timer prop's setting, whatever shape the request or the component gave it. */
export interface TimerSetting {
  intervalSeconds: number | null;
  cron: string | null;
}

/** Reads `{intervalSeconds}`, `{interval_seconds}`, `{cron}` or the API's `{cron, interval_seconds}`. */
export function timerSetting(value: unknown): TimerSetting | undefined {
  if (!value || typeof value !== "object") return undefined;
  const v = value as Record<string, unknown>;
  const cron = typeof v.cron === "string" && v.cron.trim() ? v.cron.trim() : null;
  const raw = v.intervalSeconds ?? v.interval_seconds;
  const interval = typeof raw === "number" && Number.isFinite(raw) && raw >= 1 ? Math.floor(raw) : null;
  if (!cron && !interval) return undefined;
  return { intervalSeconds: cron ? null : interval, cron };
}

/** The source's timer (its first timer prop, configured value or the prop's default). */
export function sourceTimer(component: RuntimeComponent, configured: Record<string, unknown>): TimerSetting | undefined {
  const prop = component.props.find((p) => p.type === TIMER_TYPE);
  if (!prop) return undefined;
  return timerSetting(configured[prop.name]) ?? timerSetting(prop.default) ?? timerSetting(prop);
}

export function httpProp(component: RuntimeComponent): PropDescriptor | undefined {
  return component.props.find((p) => p.type === HTTP_TYPE);
}

/**
 * Components are immutable once saved (a changed component is a new id), so their runnable form
 * is cached by id; sources are read fresh every time (active flag, props).
 */
export function cachingCatalog(inner: RuntimeCatalog, max = 500): RuntimeCatalog {
  const components = new Map<string, RuntimeComponent>();
  return {
    source: (id) => inner.source(id),
    async component(id) {
      const hit = components.get(id);
      if (hit) return hit;
      const c = await inner.component(id);
      if (c) {
        components.set(id, c);
        if (components.size > max) components.delete(components.keys().next().value!);
      }
      return c;
    },
  };
}
