/** Workflows (extension, decisions.md "Workflows"). */
import type { FastifyPluginAsync } from "fastify";
import {
  CreateWorkflowBody,
  Page,
  PageQuery,
  UpdateWorkflowBody,
  Workflow,
} from "../../../shared/resources/index.js";
import { WorkflowInputError, type WorkflowService } from "../../workflows/service.js";
import { TriggerInputError } from "../../workflows/schedules/triggers.js";
import { badRequest, HttpError, notFound } from "../errors.js";
import { pageBody, pageRequest } from "../paging.js";
import { route } from "../route.js";
import { Data, IdParams } from "../schemas.js";

async function as400<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof WorkflowInputError) throw badRequest(err.message);
    if (err instanceof TriggerInputError) throw new HttpError(400, "bad_request", err.message, err.details);
    throw err;
  }
}

export const workflowRoutes: FastifyPluginAsync<{ workflows: WorkflowService }> = async (app, { workflows }) => {
  const tags = ["workflows"];

  route(
    app,
    { method: "POST", url: "/workflows", summary: "Create a workflow", tags, body: CreateWorkflowBody, response: Data(Workflow) },
    async ({ body, user, requester }) => ({ data: await as400(() => workflows.create(user.id, body, requester)) }),
  );

  route(
    app,
    { method: "GET", url: "/workflows/:id", summary: "A workflow", tags, params: IdParams, response: Data(Workflow) },
    async ({ params, user }) => {
      const wf = await workflows.get(user.id, params.id);
      if (!wf) throw notFound(`workflow ${params.id}`);
      return { data: wf };
    },
  );

  route(
    app,
    {
      method: "PUT",
      url: "/workflows/:id",
      summary: "Update a workflow's name, steps or active state",
      tags,
      params: IdParams,
      body: UpdateWorkflowBody,
      response: Data(Workflow),
    },
    async ({ params, body, user, requester }) => {
      const wf = await as400(() => workflows.update(user.id, params.id, body, requester));
      if (!wf) throw notFound(`workflow ${params.id}`);
      return { data: wf };
    },
  );

  route(
    app,
    { method: "DELETE", url: "/workflows/:id", summary: "Delete a workflow, its events and subscriptions", tags, params: IdParams, status: 204 },
    async ({ params, user }) => {
      if (!(await workflows.delete(user.id, params.id))) throw notFound(`workflow ${params.id}`);
      return undefined;
    },
  );

  route(
    app,
    { method: "GET", url: "/users/me/workflows", summary: "The authenticated user's workflows", tags, query: PageQuery, response: Page(Workflow) },
    async ({ query, user }) => pageBody(await workflows.list(user.id, pageRequest(query))),
  );
};
