import { describe, expect, it } from "vitest";
import type { PropDescriptor } from "../../../shared/resources/index.js";
import { propIssues, STEP_PROP_TYPES } from "./registry.js";

const DECLARED: PropDescriptor[] = [
  { name: "github", type: "app", app: "github" },
  { name: "label", type: "string", optional: true, options: ["a", { label: "Bee", value: "b" }] },
  { name: "limit", type: "integer", default: 10, min: 1, max: 100 },
  { name: "dry", type: "boolean" },
];

/**
 * The owner's accounts: one github, one slack; their data store: ds_mine. Any other id (another
 * user's included) is not found.
 */
const ctx = {
  ownerId: "u_1",
  accounts: async (ids: string[]) =>
    [
      { id: "apn_gh", app: "github" },
      { id: "apn_sl", app: "slack" },
    ].filter((a) => ids.includes(a.id)),
  dataStores: async (ids: string[]) => ["ds_mine"].filter((id) => ids.includes(id)),
};

const issues = (configured: Record<string, unknown>, declared = DECLARED) =>
  propIssues(declared, configured, ctx);

describe("code step prop checks", () => {
  it("takes right values, leaving out optional and defaulted props", async () => {
    expect(await issues({ github: { authProvisionId: "apn_gh" }, dry: false })).toEqual([]);
    expect(
      await issues({ github: { authProvisionId: "apn_gh" }, dry: true, label: "b", limit: 100 }),
    ).toEqual([]);
    // null is "not given": the default (or nothing) applies.
    expect(await issues({ github: { authProvisionId: "apn_gh" }, dry: true, limit: null })).toEqual([]);
  });

  it("names each bad value", async () => {
    expect(await issues({ label: 3, limit: 0, nope: true })).toEqual([
      { prop: "nope", message: "not a prop of this step's code (its props: github, label, limit, dry)" },
      { prop: "github", message: "required: a connected account: {authProvisionId}" },
      { prop: "label", message: "must be a string, not the number 3" },
      { prop: "limit", message: "must be at least 1" },
      { prop: "dry", message: "required: true or false" },
    ]);
    expect(await issues({ github: { authProvisionId: "apn_sl" }, dry: 1, label: "c", limit: "5" })).toEqual([
      { prop: "github", message: "account apn_sl is a slack account; this prop takes a github account" },
      { prop: "label", message: 'must be one of "a", "b"' },
      { prop: "limit", message: "must be an integer, not a string" },
      { prop: "dry", message: "must be true or false, not the number 1" },
    ]);
  });

  it("another user's account reads as a missing one; inline credentials are refused", async () => {
    const [theirs] = await issues({ github: { authProvisionId: "apn_theirs" }, dry: true });
    const [missing] = await issues({ github: { authProvisionId: "apn_nothing" }, dry: true });
    expect(theirs!.message.replace("apn_theirs", "X")).toBe(missing!.message.replace("apn_nothing", "X"));
    expect(await issues({ github: { authProvisionId: "apn_gh", $auth: { t: 1 } }, dry: true })).toEqual([
      {
        prop: "github",
        message: 'must be a connected account, {"authProvisionId": "apn_..."}, not an object',
      },
    ]);
  });

  it("a data_store prop names one of the owner's stores, by id or {id}", async () => {
    const store: PropDescriptor[] = [{ name: "store", type: "data_store" }];
    expect(await issues({ store: "ds_mine" }, store)).toEqual([]);
    expect(await issues({ store: { id: "ds_mine" } }, store)).toEqual([]);
    expect(await issues({}, store)).toEqual([{ prop: "store", message: 'required: a data store: "ds_..."' }]);
    expect(await issues({ store: "ds_theirs" }, store)).toEqual([
      { prop: "store", message: "data store ds_theirs not found" },
    ]);
    expect(await issues({ store: 5 }, store)).toEqual([
      { prop: "store", message: 'must be a data store id, "ds_..." or {"id": "ds_..."}, not the number 5' },
    ]);
  });

  it("a type with no module is refused, naming the types there are", async () => {
    expect(Object.keys(STEP_PROP_TYPES)).toEqual(["app", "string", "integer", "boolean", "data_store"]);
    expect(await issues({}, [{ name: "file", type: "dir" }])).toEqual([
      {
        prop: "file",
        message:
          'props of type "dir" are not supported in a code step (the types: app, string, integer, boolean, data_store)',
      },
    ]);
  });
});
