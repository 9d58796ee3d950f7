/**
 * Data stores (extension, decisions.md "Workflow triggers, environment variables and data
 * stores"): stores, and their records by URL-encoded key. Another user's store or record is 404.
 */
import type { FastifyPluginAsync } from "fastify";
import {
  CreateDataStoreBody,
  DataStore,
  DataStoreRecord,
  IncrementRecordBody,
  Page,
  PageQuery,
  PutRecordBody,
  RecordListQuery,
  RecordParams,
  UpdateDataStoreBody,
} from "../../../shared/resources/index.js";
import type { DataStoreService } from "../../data-stores/service.js";
import { pageBody, pageRequest } from "../paging.js";
import { route } from "../route.js";
import { Data, IdParams } from "../schemas.js";

export const dataStoreRoutes: FastifyPluginAsync<{ stores: DataStoreService }> = async (app, { stores }) => {
  const tags = ["data stores"];

  route(
    app,
    {
      method: "POST",
      url: "/data_stores",
      summary: "Create a data store",
      tags,
      body: CreateDataStoreBody,
      response: Data(DataStore),
    },
    async ({ body, user }) => ({ data: await stores.create(user.id, body.name) }),
  );

  route(
    app,
    {
      method: "GET",
      url: "/users/me/data_stores",
      summary: "The authenticated user's data stores, newest first, with their live keys and size",
      tags,
      query: PageQuery,
      response: Page(DataStore),
    },
    async ({ query, user }) => pageBody(await stores.list(user.id, pageRequest(query))),
  );

  route(
    app,
    {
      method: "GET",
      url: "/data_stores/:id",
      summary: "A data store",
      tags,
      params: IdParams,
      response: Data(DataStore),
    },
    async ({ params, user }) => ({ data: await stores.get(user.id, params.id) }),
  );

  route(
    app,
    {
      method: "PATCH",
      url: "/data_stores/:id",
      summary: "Rename a data store",
      tags,
      params: IdParams,
      body: UpdateDataStoreBody,
      response: Data(DataStore),
    },
    async ({ params, body, user }) => ({ data: await stores.rename(user.id, params.id, body.name) }),
  );

  route(
    app,
    {
      method: "DELETE",
      url: "/data_stores/:id",
      summary:
        "Delete a data store and its records; 409 data_store_in_use while a source or workflow step names it",
      tags,
      params: IdParams,
      status: 204,
      errors: [409],
    },
    async ({ params, user }) => {
      await stores.delete(user.id, params.id);
      return undefined;
    },
  );

  route(
    app,
    {
      method: "GET",
      url: "/data_stores/:id/records",
      summary:
        "A store's live records in ascending key order, optionally those whose key starts with `prefix`",
      tags,
      params: IdParams,
      query: RecordListQuery,
      response: Page(DataStoreRecord),
    },
    async ({ params, query, user }) => stores.records(user.id, params.id, query),
  );

  route(
    app,
    {
      method: "GET",
      url: "/data_stores/:id/records/:key",
      summary: "A record (404 when absent or expired)",
      tags,
      params: RecordParams,
      response: Data(DataStoreRecord),
    },
    async ({ params, user }) => ({ data: await stores.record(user.id, params.id, params.key) }),
  );

  route(
    app,
    {
      method: "PUT",
      url: "/data_stores/:id/records/:key",
      summary: "Create or replace a record; with ttl_seconds it expires that long after",
      tags,
      params: RecordParams,
      body: PutRecordBody,
      response: Data(DataStoreRecord),
    },
    async ({ params, body, user }) => ({
      data: await stores.put(user.id, params.id, params.key, body.value, body.ttl_seconds),
    }),
  );

  route(
    app,
    {
      method: "DELETE",
      url: "/data_stores/:id/records/:key",
      summary: "Delete a record (404 when absent or expired)",
      tags,
      params: RecordParams,
      status: 204,
    },
    async ({ params, user }) => {
      await stores.deleteRecord(user.id, params.id, params.key);
      return undefined;
    },
  );

  route(
    app,
    {
      method: "POST",
      url: "/data_stores/:id/records/:key/increment",
      summary: "Add `by` (default 1) to a record's number, atomically (an absent key counts from 0)",
      tags,
      params: RecordParams,
      body: IncrementRecordBody,
      response: Data(DataStoreRecord),
    },
    async ({ params, body, user }) => ({
      data: await stores.increment(user.id, params.id, params.key, body.by),
    }),
  );
};
