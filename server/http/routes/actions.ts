/** Actions (extension, decisions.md "Actions"): find the vendor's actions by app, run one by key. */
import type { FastifyPluginAsync } from "fastify";
import { z } from "zod";
import {
  Action,
  ActionKeyParams,
  ActionOptions,
  ActionOptionsBody,
  ActionResult,
  ActionsQuery,
  RunActionBody,
} from "../../../shared/resources/index.js";
import type { ActionService } from "../../actions/service.js";
import { route } from "../route.js";
import { Data } from "../schemas.js";

export const actionRoutes: FastifyPluginAsync<{ actions: ActionService }> = async (app, { actions }) => {
  const tags = ["actions"];

  route(
    app,
    {
      method: "GET",
      url: "/actions",
      summary: "Actions of an app (its @pipedream/<app> package, installed on demand), the account's own first; q matches key, name, description",
      tags,
      query: ActionsQuery,
      response: z.object({ data: z.array(Action) }),
    },
    async ({ requester, query }) => ({ data: await actions.list(requester, query) }),
  );

  route(
    app,
    { method: "GET", url: "/actions/:key", summary: "One action by key", tags, params: ActionKeyParams, response: Data(Action) },
    async ({ requester, params }) => ({ data: await actions.get(requester, params.key) }),
  );

  route(
    app,
    {
      method: "POST",
      errors: [429],
      url: "/actions/run",
      summary: "Run an action in the sandbox (counted as an invocation); a thrown error is the result's error, not an HTTP error",
      tags,
      body: RunActionBody,
      response: Data(ActionResult),
    },
    async ({ requester, body }) => ({ data: await actions.run(requester, body) }),
  );

  route(
    app,
    {
      method: "POST",
      errors: [429],
      url: "/actions/options",
      summary: "An action prop's choices from its options(), with the props configured so far",
      tags,
      body: ActionOptionsBody,
      response: Data(ActionOptions),
    },
    async ({ requester, body }) => ({ data: await actions.options(requester, body) }),
  );
};
