/** Connected accounts (extension, decisions.md "Connected accounts"): values go in, field names come out. */
import type { FastifyPluginAsync } from "fastify";
import {
  Account,
  AccountListQuery,
  CreateAccountBody,
  Page,
  UpdateAccountBody,
} from "../../../shared/resources/index.js";
import type { AccountService } from "../../accounts/service.js";
import { pageBody, pageRequest } from "../paging.js";
import { route } from "../route.js";
import { Data, IdParams } from "../schemas.js";

export const accountRoutes: FastifyPluginAsync<{ accounts: AccountService }> = async (app, { accounts }) => {
  const tags = ["accounts"];

  route(
    app,
    {
      method: "POST",
      url: "/accounts",
      summary: "Store an app's credentials as a connected account (sealed at rest; never answered back)",
      tags,
      body: CreateAccountBody,
      response: Data(Account),
    },
    async ({ body, user }) => ({ data: await accounts.create(user.id, body) }),
  );

  route(
    app,
    {
      method: "GET",
      url: "/users/me/accounts",
      summary: "The authenticated user's connected accounts, optionally of one app",
      tags,
      query: AccountListQuery,
      response: Page(Account),
    },
    async ({ query, user }) => pageBody(await accounts.list(user.id, pageRequest(query), query.app)),
  );

  route(
    app,
    { method: "GET", url: "/accounts/:id", summary: "A connected account: its app, name and field names", tags, params: IdParams, response: Data(Account) },
    async ({ params, user }) => ({ data: await accounts.get(user.id, params.id) }),
  );

  route(
    app,
    {
      method: "PATCH",
      url: "/accounts/:id",
      summary: "Rename an account, or replace all of its values (runs that start after the answer use them)",
      tags,
      params: IdParams,
      body: UpdateAccountBody,
      response: Data(Account),
    },
    async ({ params, body, user }) => ({ data: await accounts.update(user.id, params.id, body) }),
  );

  route(
    app,
    {
      method: "DELETE",
      url: "/accounts/:id",
      summary: "Delete an account; 409 account_in_use while a source or step references it",
      tags,
      params: IdParams,
      status: 204,
      errors: [409],
    },
    async ({ params, user }) => {
      await accounts.delete(user.id, params.id);
      return undefined;
    },
  );
};
