/**
 * A workflow's own triggers (extension, decisions.md "Workflow triggers"): Run now, and the
 * coming ticks of its schedules. Another user's workflow is a 404.
 */
import type { FastifyPluginAsync } from "fastify";
import { z } from "zod";
import { NextTicksQuery, Run, RunWorkflowBody, ScheduleTick } from "../../../shared/resources/index.js";
import type { WorkflowTriggerService } from "../../workflows/schedules/service.js";
import { notFound } from "../errors.js";
import { route } from "../route.js";
import { Data, IdParams } from "../schemas.js";

export const workflowTriggerRoutes: FastifyPluginAsync<{ triggers: WorkflowTriggerService }> = async (
  app,
  { triggers },
) => {
  const tags = ["workflows"];

  route(
    app,
    {
      method: "POST",
      url: "/workflows/:id/runs",
      summary: "Run now: a production run (trigger MANUAL) with the given event (default {})",
      tags,
      params: IdParams,
      body: RunWorkflowBody,
      response: Data(Run),
    },
    async ({ params, body, user }) => {
      const run = await triggers.runNow(user.id, params.id, body?.event);
      if (!run) throw notFound(`workflow ${params.id}`);
      return { data: run };
    },
  );

  route(
    app,
    {
      method: "GET",
      url: "/workflows/:id/schedules/next",
      summary: "The workflow's next ticks over all its schedules (count 1..50, default 5)",
      tags,
      params: IdParams,
      query: NextTicksQuery,
      response: z.object({ data: z.array(ScheduleTick) }),
    },
    async ({ params, query, user }) => {
      const ticks = await triggers.nextTicks(user.id, params.id, query.count ?? 5);
      if (!ticks) throw notFound(`workflow ${params.id}`);
      return { data: ticks };
    },
  );
};
