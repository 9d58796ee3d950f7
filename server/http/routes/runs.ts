/**
 * Workflow runs (extension, decisions.md "Workflow runs"): the list, one run whole, a re-run,
 * and the live stream of a workflow's runs (at the host, as every SSE stream: `runStreamRoutes`).
 * Another user's workflow or run, or a run id of another workflow, is a 404.
 */
import type { FastifyPluginAsync } from "fastify";
import { Page, RerunBody, Run, RunListQuery } from "../../../shared/resources/index.js";
import { z } from "zod";
import { RunInputError, type RunService } from "../../workflows/runs/service.js";
import { runRunStream } from "../../streams/run-stream.js";
import { openStreams, startSse } from "../../streams/sse-response.js";
import { badRequest, notFound } from "../errors.js";
import { JsonBytes } from "../json-bytes.js";
import { pageBody, pageRequest } from "../paging.js";
import { documentRoute, route } from "../route.js";
import { Data, IdParams } from "../schemas.js";

const RunParams = z.object({ id: z.string().min(1).max(200), run_id: z.string().min(1).max(200) });

export const runRoutes: FastifyPluginAsync<{ runs: RunService }> = async (app, { runs }) => {
  const tags = ["workflows"];

  route(
    app,
    {
      method: "GET",
      url: "/workflows/:id/runs",
      summary: "A workflow's runs, newest first",
      tags,
      params: IdParams,
      query: RunListQuery,
      response: Page(Run),
    },
    async ({ params, query, user }) => {
      const page = await runs.list(
        user.id,
        params.id,
        { status: query.status, expand: query.expand, test: query.test },
        pageRequest(query),
      );
      if (!page) throw notFound(`workflow ${params.id}`);
      return pageBody(page);
    },
  );

  route(
    app,
    {
      method: "GET",
      url: "/workflows/:id/runs/:run_id",
      summary: "One run of a workflow, whole",
      tags,
      params: RunParams,
      response: Data(Run),
    },
    async ({ params, user }) => {
      const answer = await runs.detailAnswer(user.id, params.id, params.run_id);
      if (!answer) throw notFound(`run ${params.run_id} of workflow ${params.id}`);
      return new JsonBytes([answer]);
    },
  );

  route(
    app,
    {
      method: "POST",
      url: "/workflows/:id/runs/:run_id/rerun",
      summary: "Run a run's event again (from_step: the steps before it reuse the run's results)",
      tags,
      params: RunParams,
      body: RerunBody,
      response: Data(Run),
    },
    async ({ params, body, user }) => {
      let run;
      try {
        run = await runs.rerun(user.id, params.id, params.run_id, body.from_step, body.version);
      } catch (err) {
        if (err instanceof RunInputError) throw badRequest(err.message);
        throw err;
      }
      if (!run) throw notFound(`run ${params.run_id} of workflow ${params.id}`);
      return { data: run };
    },
  );

  route(
    app,
    {
      method: "POST",
      url: "/workflows/:id/runs/:run_id/cancel",
      summary: "Cancel a run that waits (queued, retrying or delayed): it never starts again",
      tags,
      params: RunParams,
      response: Data(Run),
      errors: [409],
    },
    async ({ params, user }) => {
      const run = await runs.cancel(user.id, params.id, params.run_id);
      if (!run) throw notFound(`run ${params.run_id} of workflow ${params.id}`);
      return { data: run };
    },
  );
};

/** `GET /workflows/{id}/runs/sse`: each run's start, changes and end, as they happen (no backlog). */
export const runStreamRoutes: FastifyPluginAsync<{
  runs: RunService;
  owns: (userId: string, workflowId: string) => Promise<boolean>;
  heartbeatMs?: number;
}> = async (app, o) => {
  const open = openStreams(app);
  app.get<{ Params: { id: string } }>("/workflows/:id/runs/sse", async (request, reply) => {
    const user = await app.authenticate(request);
    const id = request.params.id;
    if (!id.startsWith("p_") || !(await o.owns(user.id, id))) throw notFound(`workflow ${id}`);
    const res = await startSse(reply, open);
    if (res.destroyed) return; // the client left before the stream began
    runRunStream(res, { changes: o.runs.changes, workflowId: id, ownerId: user.id, heartbeatMs: o.heartbeatMs });
  });
  documentRoute(app, {
    method: "GET",
    tags: ["workflows"],
    contentType: "text/event-stream",
    url: "/workflows/:id/runs/sse",
    summary: "Live stream of a workflow's runs: each start, change and end (SSE)",
  });
};
