/**
 * The queue's handler for source jobs (`dc_`): loads the source and its component, skips an
 * inactive or deleted source (it is not triggered at all), and runs the invocation. An HTTP
 * request waiting for a custom response is answered by the first `respond`, or released (504)
 * when the job ends without one.
 */
import type { RuntimeCatalog } from "./catalog.js";
import type { Invoker } from "./invoke.js";
import type { QueuedJob } from "./queue.js";
import type { Responders } from "./triggers/http.js";

export async function handleSourceJob(job: QueuedJob, deps: { catalog: RuntimeCatalog; invoker: Invoker; responders: Responders }): Promise<void> {
  try {
    const source = await deps.catalog.source(job.targetId);
    if (!source || !source.active) return;
    const component = await deps.catalog.component(source.componentId);
    if (!component) return;
    await deps.invoker.invoke({
      source,
      component,
      action: "run",
      trigger: job.trigger,
      event: job.event,
      onRespond: (r) => deps.responders.respond(job.respondTo, r),
      // The dispatcher already counted the delivery into origin.hops (delivery/hops.ts).
      hops: job.origin?.hops ?? 0,
    });
  } finally {
    deps.responders.finish(job.respondTo);
  }
}
