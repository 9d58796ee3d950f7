/** Users (spec §4 Users, decisions.md Users and keys). */
import type { FastifyPluginAsync } from "fastify";
import {
  CreateUserBody,
  Page,
  PageQuery,
  UpdateUserBody,
  User,
  UserIdParams,
} from "../../../shared/resources/index.js";
import type { UserService } from "../../users/service.js";
import { pageBody, pageRequest } from "../paging.js";
import { route } from "../route.js";
import { Data } from "../schemas.js";

export const userRoutes: FastifyPluginAsync<{ users: UserService }> = async (app, { users }) => {
  const tags = ["users"];

  route(
    app,
    {
      method: "GET",
      url: "/users/me",
      summary: "The authenticated user, with quotas",
      tags,
      response: Data(User),
    },
    async ({ user }) => ({
      data: await users.me(user),
    }),
  );

  route(
    app,
    {
      method: "POST",
      url: "/users/me/api_key",
      summary: "Issue a new API key; the old one stops working",
      tags,
      response: Data(User),
    },
    async ({ user }) => ({ data: await users.rotateKey(user) }),
  );

  route(
    app,
    {
      method: "POST",
      errors: [409],
      url: "/users",
      summary: "Create a user (admin)",
      tags,
      auth: "admin",
      body: CreateUserBody,
      response: Data(User),
    },
    async ({ body }) => ({ data: await users.create(body) }),
  );

  route(
    app,
    {
      method: "GET",
      url: "/users",
      summary: "List users (admin)",
      tags,
      auth: "admin",
      query: PageQuery,
      response: Page(User),
    },
    async ({ query }) => pageBody(await users.list(pageRequest(query))),
  );

  route(
    app,
    {
      method: "GET",
      url: "/users/:id",
      summary: "A user, with disabled and their own quotas (admin)",
      tags,
      auth: "admin",
      params: UserIdParams,
      response: Data(User),
    },
    async ({ params }) => ({ data: await users.get(params.id) }),
  );

  route(
    app,
    {
      method: "PATCH",
      errors: [409],
      url: "/users/:id",
      summary: "Change a user's admin flag, disabled flag or quotas (null: the server default) (admin)",
      tags,
      auth: "admin",
      params: UserIdParams,
      body: UpdateUserBody,
      response: Data(User),
    },
    async ({ params, body }) => ({ data: await users.update(params.id, body) }),
  );

  route(
    app,
    {
      method: "DELETE",
      errors: [409],
      url: "/users/:id",
      summary: "Delete a user and everything they own (admin)",
      tags,
      auth: "admin",
      params: UserIdParams,
      status: 204,
    },
    async ({ params }) => {
      await users.delete(params.id);
    },
  );
};
