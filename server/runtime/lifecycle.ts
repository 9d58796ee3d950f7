/**
 * SourceLifecycle: runs a source's hooks in the documented order around the API's writes and
 * arms or disarms its timer.
 *   created: deploy, then activate (when active)
 *   updated: deactivate (when it was active), then activate (when it is active)
 *   deleted: deactivate (when active); timer, state, queued jobs and held emits are dropped
 * A deploy or activate hook that throws (or overruns) rejects with HookError; the caller undoes
 * its write. A failing *deactivate* does not block: it belongs to the code being replaced or
 * removed, and refusing would leave a source with a broken deactivate impossible to fix or delete.
 */
import { HookError, type RunnableSource, type SourceLifecycle } from "../services.js";
import type { JobsRepo } from "../store/repos/jobs.js";
import type { SourceStateRepo } from "../store/repos/source-state.js";
import { sourceTimer, type RuntimeCatalog, type RuntimeComponent } from "./catalog.js";
import { delayedTarget } from "./delayed-emits.js";
import type { Action, Invoker } from "./invoke.js";
import { InvalidTimerError, validateTimer, type TimerScheduler } from "./triggers/timer.js";

export interface LifecycleDeps {
  catalog: RuntimeCatalog;
  invoker: Invoker;
  timers: TimerScheduler;
  state: SourceStateRepo;
  jobs: JobsRepo;
  /** Called when a source changed or goes (caches of it are out of date). */
  onChanged?: (sourceId: string) => void;
}

function ignoreHookError(err: unknown): void {
  if (!(err instanceof HookError)) throw err;
}

export class RuntimeLifecycle implements SourceLifecycle {
  constructor(private readonly deps: LifecycleDeps) {}

  async created(source: RunnableSource): Promise<void> {
    const component = await this.component(source);
    try {
      const timer = this.timerOf(component, source);
      await this.hook(source, component, "deploy");
      if (source.active) {
        await this.hook(source, component, "activate");
        if (timer) await this.deps.timers.arm(source.id, source.userId, timer);
      }
    } catch (err) {
      // The source will not exist: forget what its hooks stored (held emits included).
      await this.deps.jobs.dropTarget(delayedTarget(source.id));
      await this.deps.state.drop(source.id);
      throw err;
    }
  }

  async updated(before: RunnableSource, after: RunnableSource): Promise<void> {
    // The new row is written already (and rolled back if this fails, which calls here again).
    this.deps.onChanged?.(after.id);
    const [prev, next] = await Promise.all([this.component(before), this.component(after)]);
    const timer = this.timerOf(next, after);
    if (before.active) {
      await this.hook(before, prev, "deactivate").catch(ignoreHookError);
      await this.deps.timers.disarm(before.id);
    }
    if (after.active) {
      await this.hook(after, next, "activate");
      if (timer) await this.deps.timers.arm(after.id, after.userId, timer);
    }
  }

  async deleted(source: RunnableSource): Promise<void> {
    const component = await this.deps.catalog.component(source.componentId);
    if (source.active && component) await this.hook(source, component, "deactivate").catch(ignoreHookError);
    await this.deps.timers.disarm(source.id);
    await this.deps.jobs.dropTarget(source.id);
    // Its emits still held until their delivery_ts (delayed-emits.ts).
    await this.deps.jobs.dropTarget(delayedTarget(source.id));
    await this.deps.state.drop(source.id);
  }

  /** The source's timer, validated so that a bad cron fails the request before any hook runs. */
  private timerOf(component: RuntimeComponent, source: RunnableSource) {
    const timer = sourceTimer(component, source.configuredProps);
    if (!timer) return undefined;
    try {
      validateTimer(timer);
      return timer;
    } catch (err) {
      if (err instanceof InvalidTimerError) throw new HookError("timer", err.message);
      throw err;
    }
  }

  private async component(source: RunnableSource): Promise<RuntimeComponent> {
    const component = await this.deps.catalog.component(source.componentId);
    if (!component) throw new Error(`component ${source.componentId} of source ${source.id} not found`);
    return component;
  }

  private async hook(source: RunnableSource, component: RuntimeComponent, hook: Exclude<Action, "run">): Promise<void> {
    if (!component.hooks.includes(hook)) return;
    const result = await this.deps.invoker.invoke({ source, component, action: hook, trigger: "hook", event: null });
    if (!result.ok) throw new HookError(hook, `the ${hook} hook failed: ${result.error?.message ?? "unknown error"}`);
  }
}
