/**
 * The History tab: the workflow's versions (newest first) with their message, origin and time;
 * a diff of any two (A and B); Restore, which makes a new version with an old one's content.
 */
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import type { Workflow, WorkflowVersionInfo } from "../../../../shared/resources/index.js";
import { BridgeCallError, call } from "../../../state/bridge.js";
import { keys } from "../../../state/queries.js";
import { ConfirmDialog } from "../../../ui/ConfirmDialog.js";
import { ErrorNote } from "../../../ui/ErrorNote.js";
import { Loading } from "../../../ui/Spinner.js";
import { Time } from "../../../ui/Time.js";
import { toast } from "../../../ui/Toasts.js";
import { versionsKey } from "../builder/useDraft.js";
import { DiffView } from "./DiffView.js";
import { diffVersions } from "./diffVersions.js";

/** The versions listed: the newest hundred (one page of the API). */
const LIMIT = 100;

const ORIGIN: Record<WorkflowVersionInfo["origin"], string> = {
  create: "created",
  update: "updated",
  draft: "deployed from a draft",
  restore: "restored",
  push: "pushed",
};

export const originText = (v: WorkflowVersionInfo) =>
  v.origin === "restore" && v.restored_from ? `restored from version ${v.restored_from}` : ORIGIN[v.origin];

export function HistoryPanel({ workflow: w }: { workflow: Workflow }) {
  const qc = useQueryClient();
  const versions = useQuery({
    queryKey: [...versionsKey(w.id), w.version ?? 0],
    queryFn: () => call("listWorkflowVersions", w.id, { limit: LIMIT }),
  });
  const [pick, setPick] = useState<{ a: number; b: number } | null>(null);
  const [restoring, setRestoring] = useState<number | null>(null);
  const [conflict, setConflict] = useState<string | null>(null);
  if (versions.isPending) return <Loading label="Loading versions" />;
  if (versions.error)
    return <ErrorNote error={versions.error} title="Could not load the versions" onRetry={() => void versions.refetch()} />;
  const list = versions.data.data;
  const a = pick?.a ?? list[1]?.version ?? list[0]?.version;
  const b = pick?.b ?? list[0]?.version;

  const restore = async (n: number) => {
    try {
      const saved = await call("restoreWorkflowVersion", w.id, n, w.version ? { base_version: w.version } : {});
      qc.setQueryData(keys.workflow(w.id), saved);
      void qc.invalidateQueries({ queryKey: ["workflows"] });
      setConflict(null);
      setPick(null);
      toast(`Restored version ${n} as version ${saved.version ?? ""}`.trim());
    } catch (err) {
      if (!(err instanceof BridgeCallError && err.code === "version_conflict")) throw err;
      // Someone deployed meanwhile: show what is current now, restore nothing.
      setConflict(
        `Nothing was restored: the workflow changed since this page loaded version ${w.version}. The list now shows its current versions; restore again if you still want version ${n}.`,
      );
      await qc.invalidateQueries({ queryKey: ["workflow", w.id] });
    }
  };

  return (
    <div className="page history">
      {conflict && (
        <p role="alert" className="inline-error">
          {conflict}
        </p>
      )}
      <table className="data-table versions-table">
        <caption className="sr-only">Versions of {w.name}, newest first</caption>
        <thead>
          <tr>
            <th scope="col">Version</th>
            <th scope="col">Message</th>
            <th scope="col">Origin</th>
            <th scope="col">When</th>
            <th scope="col">A</th>
            <th scope="col">B</th>
            <th scope="col">
              <span className="sr-only">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {list.map((v) => (
            <tr key={v.version}>
              <th scope="row">
                {v.version}
                {v.version === w.version && (
                  <>
                    {" "}
                    <span className="chip ok">current</span>
                  </>
                )}
              </th>
              <td className="version-message">{v.message ?? <span className="muted">No message</span>}</td>
              <td>{originText(v)}</td>
              <td>
                <Time ms={v.created_at * 1000} />
              </td>
              <td>
                <input
                  type="radio"
                  name="diff-a"
                  aria-label={`Version ${v.version} as A`}
                  checked={a === v.version}
                  onChange={() => b !== undefined && setPick({ a: v.version, b })}
                />
              </td>
              <td>
                <input
                  type="radio"
                  name="diff-b"
                  aria-label={`Version ${v.version} as B`}
                  checked={b === v.version}
                  onChange={() => a !== undefined && setPick({ a, b: v.version })}
                />
              </td>
              <td>
                {v.version !== w.version && (
                  <button type="button" className="btn small" onClick={() => setRestoring(v.version)}>
                    Restore<span className="sr-only"> version {v.version}</span>
                  </button>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {list.length >= LIMIT && <p className="muted">The newest {LIMIT} versions.</p>}
      {a !== undefined && b !== undefined && <VersionCompare workflowId={w.id} a={a} b={b} />}
      {restoring !== null && (
        <ConfirmDialog
          title={`Restore version ${restoring}?`}
          message={
            <p>
              A new version is deployed with the steps and settings of version {restoring}. Nothing is lost: version{" "}
              {w.version} stays in the history.
            </p>
          }
          confirmLabel={`Restore version ${restoring}`}
          danger={false}
          onConfirm={() => restore(restoring)}
          onClose={() => setRestoring(null)}
        />
      )}
    </div>
  );
}

function VersionCompare({ workflowId, a, b }: { workflowId: string; a: number; b: number }) {
  const read = (n: number) => ({
    queryKey: [...versionsKey(workflowId), "one", n],
    queryFn: () => call("getWorkflowVersion", workflowId, n),
    staleTime: Infinity, // a version never changes
  });
  const va = useQuery(read(a));
  const vb = useQuery(read(b));
  return (
    <section className="version-compare" aria-labelledby="version-compare-title">
      <h3 id="version-compare-title">
        Changes from version {a} (A) to version {b} (B)
      </h3>
      {va.error || vb.error ? (
        <ErrorNote error={va.error ?? vb.error} title="Could not load the versions" />
      ) : !va.data || !vb.data ? (
        <Loading label="Loading the versions" />
      ) : (
        <DiffView diff={diffVersions(va.data.workflow, vb.data.workflow)} a={a} b={b} />
      )}
    </section>
  );
}
