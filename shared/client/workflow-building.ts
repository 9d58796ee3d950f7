/**
 * The client's methods for building workflows (decisions.md "Building workflows"): versions, the
 * draft, and two runs compared.
 */
import {
  Page,
  RunComparison,
  Workflow,
  WorkflowDraft,
  WorkflowVersion,
  WorkflowVersionInfo,
  type DeployDraftBody,
  type DraftBody,
  type PageQuery,
  type RestoreVersionBody,
  LAST_SUCCESS,
} from "../resources/index.js";
import { Data, enc, pageQuery as page, type Request } from "./request.js";

export function workflowBuildingMethods(request: Request) {
  return {
    listWorkflowVersions: (id: string, q?: PageQuery) =>
      request("GET", `/workflows/${enc(id)}/versions`, Page(WorkflowVersionInfo), { query: page(q) }),
    getWorkflowVersion: async (id: string, version: number) =>
      (await request("GET", `/workflows/${enc(id)}/versions/${version}`, Data(WorkflowVersion))).data,
    /** A new version with version n's content (409 `version_conflict` when `base_version` is stale). */
    restoreWorkflowVersion: async (id: string, version: number, body: RestoreVersionBody = {}) =>
      (await request("POST", `/workflows/${enc(id)}/versions/${version}/restore`, Data(Workflow), { body }))
        .data,
    /** The draft (404 `no_draft` when there is none). */
    getWorkflowDraft: async (id: string) =>
      (await request("GET", `/workflows/${enc(id)}/draft`, Data(WorkflowDraft))).data,
    updateWorkflowDraft: async (id: string, body: DraftBody) =>
      (await request("PUT", `/workflows/${enc(id)}/draft`, Data(WorkflowDraft), { body })).data,
    discardWorkflowDraft: (id: string) => request("DELETE", `/workflows/${enc(id)}/draft`, null),
    /** Deploys the draft as the next version (400 `invalid_step` when a step's code does not parse). */
    deployWorkflowDraft: async (id: string, body: DeployDraftBody = {}) =>
      (await request("POST", `/workflows/${enc(id)}/draft/deploy`, Data(Workflow), { body })).data,
    /**
     * Two runs compared step by step: statuses, durations, code diffs and differing values. `with`:
     * another run's id, or `last_success` (404 `not_found` when the workflow has no other successful run).
     */
    compareWorkflowRuns: async (id: string, runId: string, withRun: string = LAST_SUCCESS) =>
      (
        await request("GET", `/workflows/${enc(id)}/runs/${enc(runId)}/compare`, Data(RunComparison), {
          query: { with: withRun },
        })
      ).data,
  };
}
