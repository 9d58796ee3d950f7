/**
 * Building workflows (extension, decisions.md "Building workflows"): a workflow's versions
 * (listed, read whole, restored) and its one draft (read, changed, discarded, deployed). Another
 * user's workflow is a 404 for each; a stale `base_version` is 409 `version_conflict`.
 */
import type { FastifyPluginAsync } from "fastify";
import { z } from "zod";
import { encodeCursor } from "../../../shared/ids.js";
import {
  DeployDraftBody,
  DraftBody,
  ERROR_CODES,
  Page,
  PageQuery,
  RestoreVersionBody,
  Workflow,
  WorkflowDraft,
  WorkflowVersion,
  WorkflowVersionInfo,
} from "../../../shared/resources/index.js";
import { HistoryInputError, type WorkflowHistory } from "../../workflows/versions/history.js";
import { WorkflowInputError } from "../../workflows/service.js";
import { TriggerInputError } from "../../workflows/schedules/triggers.js";
import { badRequest, HttpError, notFound } from "../errors.js";
import { pageInfo, pageRequest } from "../paging.js";
import { route } from "../route.js";
import { Data, IdParams } from "../schemas.js";

const VersionParams = z.object({
  id: z.string().min(1).max(200),
  n: z.coerce.number().int().positive().max(2 ** 31),
});

/** The history's refusals as 400s: what a draft or a step does wrong, with its details. */
async function as400<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof HistoryInputError) throw new HttpError(400, err.code, err.message, err.details);
    if (err instanceof WorkflowInputError) throw badRequest(err.message, ERROR_CODES.invalidStep);
    if (err instanceof TriggerInputError) throw new HttpError(400, ERROR_CODES.badRequest, err.message, err.details);
    throw err;
  }
}

export const workflowHistoryRoutes: FastifyPluginAsync<{ history: WorkflowHistory }> = async (app, { history }) => {
  const tags = ["workflows"];

  route(
    app,
    {
      method: "GET",
      url: "/workflows/:id/versions",
      summary: "A workflow's versions, newest first",
      tags,
      params: IdParams,
      query: PageQuery,
      response: Page(WorkflowVersionInfo),
    },
    async ({ params, query, user }) => {
      const page = await history.versions(user.id, params.id, pageRequest(query));
      if (!page) throw notFound(`workflow ${params.id}`);
      const first = page.rows[0];
      const last = page.rows[page.rows.length - 1];
      return {
        page_info: pageInfo(
          page.rows.length,
          page.totalCount,
          first ? encodeCursor(first.id) : null,
          last ? encodeCursor(last.id) : null,
        ),
        data: page.rows.map(({ id: _id, ...info }) => info),
      };
    },
  );

  route(
    app,
    {
      method: "GET",
      url: "/workflows/:id/versions/:n",
      summary: "One version of a workflow, whole: the workflow as it was",
      tags,
      params: VersionParams,
      response: Data(WorkflowVersion),
    },
    async ({ params, user }) => {
      const v = await history.version(user.id, params.id, params.n);
      if (!v) throw notFound(`version ${params.n} of workflow ${params.id}`);
      return { data: v };
    },
  );

  route(
    app,
    {
      method: "POST",
      url: "/workflows/:id/versions/:n/restore",
      summary: "Make a new version with version n's content",
      tags,
      params: VersionParams,
      body: RestoreVersionBody,
      response: Data(Workflow),
      errors: [409],
    },
    async ({ params, body, user, requester }) => {
      const wf = await as400(() => history.restore(user.id, params.id, params.n, body, requester));
      if (!wf) throw notFound(`version ${params.n} of workflow ${params.id}`);
      return { data: wf };
    },
  );

  route(
    app,
    { method: "GET", url: "/workflows/:id/draft", summary: "The workflow's draft", tags, params: IdParams, response: Data(WorkflowDraft) },
    async ({ params, user }) => {
      const draft = await history.draft(user.id, params.id);
      if (draft === undefined) throw notFound(`workflow ${params.id}`);
      if (draft === null) throw new HttpError(404, ERROR_CODES.noDraft, `workflow ${params.id} has no draft`);
      return { data: draft };
    },
  );

  route(
    app,
    {
      method: "PUT",
      url: "/workflows/:id/draft",
      summary: "Change the workflow's draft (made from the current version first); code that does not parse is kept",
      tags,
      params: IdParams,
      body: DraftBody,
      response: Data(WorkflowDraft),
    },
    async ({ params, body, user }) => {
      const draft = await history.saveDraft(user.id, params.id, body);
      if (!draft) throw notFound(`workflow ${params.id}`);
      return { data: draft };
    },
  );

  route(
    app,
    { method: "DELETE", url: "/workflows/:id/draft", summary: "Discard the workflow's draft", tags, params: IdParams, status: 204 },
    async ({ params, user }) => {
      const gone = await history.discardDraft(user.id, params.id);
      if (gone === undefined) throw notFound(`workflow ${params.id}`);
      if (!gone) throw new HttpError(404, ERROR_CODES.noDraft, `workflow ${params.id} has no draft`);
      return undefined;
    },
  );

  route(
    app,
    {
      method: "POST",
      url: "/workflows/:id/draft/deploy",
      summary: "Deploy the draft as the workflow's next version",
      tags,
      params: IdParams,
      body: DeployDraftBody,
      response: Data(Workflow),
      errors: [409],
    },
    async ({ params, body, user, requester }) => {
      const wf = await as400(() => history.deploy(user.id, params.id, body, requester));
      if (wf === undefined) throw notFound(`workflow ${params.id}`);
      if (wf === null) throw new HttpError(404, ERROR_CODES.noDraft, `workflow ${params.id} has no draft`);
      return { data: wf };
    },
  );
};
