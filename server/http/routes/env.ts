/**
 * Environment variables (extension, decisions.md "Workflow triggers, environment variables and
 * data stores"): a secret's value goes in and never comes out; a plain one's is answered.
 */
import type { FastifyPluginAsync } from "fastify";
import { EnvList, EnvNameParams, EnvVar, SetEnvBody } from "../../../shared/resources/index.js";
import type { EnvService } from "../../env/service.js";
import { route } from "../route.js";
import { Data } from "../schemas.js";

export const envRoutes: FastifyPluginAsync<{ env: EnvService }> = async (app, { env }) => {
  const tags = ["env"];

  route(
    app,
    {
      method: "GET",
      url: "/users/me/env",
      summary: "The authenticated user's environment variables, by name (a secret's value is never answered)",
      tags,
      response: EnvList,
    },
    async ({ user }) => ({ data: await env.list(user.id) }),
  );

  route(
    app,
    {
      method: "PUT",
      url: "/users/me/env/:name",
      summary:
        "Create or replace a variable (secret unless `secret: false`); runs that start after the answer read it, on every instance",
      tags,
      params: EnvNameParams,
      body: SetEnvBody,
      response: Data(EnvVar),
    },
    async ({ params, body, user }) => ({ data: await env.set(user.id, params.name, body) }),
  );

  route(
    app,
    {
      method: "DELETE",
      url: "/users/me/env/:name",
      summary: "Delete a variable",
      tags,
      params: EnvNameParams,
      status: 204,
    },
    async ({ params, user }) => {
      await env.delete(user.id, params.name);
      return undefined;
    },
  );
};
