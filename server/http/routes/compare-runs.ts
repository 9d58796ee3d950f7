/**
 * Comparing two runs of a workflow (extension, decisions.md "Building workflows", "Compare
 * runs"): `GET /workflows/{id}/runs/{run_id}/compare?with=<run_id | last_success>`, step by step.
 * Another user's workflow or run is a 404, as is `last_success` when the workflow has none; a
 * `with` that is missing or names no run is a 400.
 */
import type { FastifyPluginAsync } from "fastify";
import { z } from "zod";
import { CompareRunsQuery, ERROR_CODES, RunComparison } from "../../../shared/resources/index.js";
import { CompareInputError, type RunComparer } from "../../workflows/compare/compare.js";
import { badRequest, HttpError, notFound } from "../errors.js";
import { route } from "../route.js";
import { Data } from "../schemas.js";

const RunParams = z.object({ id: z.string().min(1).max(200), run_id: z.string().min(1).max(200) });

export const compareRunRoutes: FastifyPluginAsync<{ comparer: RunComparer }> = async (app, { comparer }) => {
  route(
    app,
    {
      method: "GET",
      url: "/workflows/:id/runs/:run_id/compare",
      summary:
        "Compare a run with another (or the last successful one), step by step: statuses, durations, code and values",
      tags: ["workflows"],
      params: RunParams,
      query: CompareRunsQuery,
      response: Data(RunComparison),
    },
    async ({ params, query, user }) => {
      let comparison;
      try {
        comparison = await comparer.compare(user.id, params.id, params.run_id, query.with);
      } catch (err) {
        if (!(err instanceof CompareInputError)) throw err;
        throw err.status === 400
          ? badRequest(err.message)
          : new HttpError(404, ERROR_CODES.notFound, err.message);
      }
      if (!comparison) throw notFound(`workflow ${params.id}`);
      return { data: comparison };
    },
  );
};
