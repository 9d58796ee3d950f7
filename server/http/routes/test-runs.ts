/**
 * Test runs (extension, decisions.md "Building workflows"): `POST /workflows/{id}/test` runs the
 * draft (or the current version, or the steps given) on a chosen event and answers 200 with the
 * run once it has ended (202 with it as it is after 60 s). Listed with `GET …/runs?test=true`.
 */
import type { FastifyPluginAsync } from "fastify";
import { ERROR_CODES, Run, TestRunBody } from "../../../shared/resources/index.js";
import { PlatformFailure } from "../../runtime/platform-failure.js";
import { WorkflowInputError } from "../../workflows/service.js";
import { TestInputError, type TestRuns } from "../../workflows/tests/index.js";
import { badRequest, HttpError, notFound } from "../errors.js";
import { route } from "../route.js";
import { Data, IdParams } from "../schemas.js";

export const testRunRoutes: FastifyPluginAsync<{ tests: TestRuns }> = async (app, { tests }) => {
  route(
    app,
    {
      method: "POST",
      url: "/workflows/:id/test",
      summary: "Test the workflow's draft (or current version, or the steps given) on an event: nothing it produces is sent",
      tags: ["workflows"],
      params: IdParams,
      body: TestRunBody,
      response: Data(Run),
    },
    async ({ params, body, user, requester, reply }) => {
      let started;
      try {
        started = await tests.start(user.id, params.id, body, requester);
      } catch (err) {
        if (err instanceof TestInputError)
          throw err.status === 404 ? notFound(err.message.replace(/ not found$/, "")) : badRequest(err.message);
        if (err instanceof WorkflowInputError) throw badRequest(err.message, ERROR_CODES.invalidStep);
        if (err instanceof PlatformFailure)
          throw new HttpError(503, ERROR_CODES.unavailable, "the test run could not be run now: try again");
        throw err;
      }
      if (!started) throw notFound(`workflow ${params.id}`);
      // Still going after the wait: 202 with the run as it is (follow it with GET or the stream).
      if (!started.done) await reply.code(202).send({ data: started.run });
      return { data: started.run };
    },
  );
};
