/** Workflows: the list, create one from step code, and one workflow with its emits and $errors. */
import { useState } from "react";
import { navigate } from "../../app/router.js";
import { useWorkflowsPage } from "../../state/queries.js";
import { ErrorNote } from "../../ui/ErrorNote.js";
import { MasterDetail } from "../../ui/MasterDetail.js";
import { Pager, useCursorPages } from "../../ui/Pager.js";
import { Spinner } from "../../ui/Spinner.js";
import { CreateWorkflowDialog } from "./CreateWorkflowDialog.js";
import { WorkflowDetail } from "./WorkflowDetail.js";

const PAGE_SIZE = 25;

export function WorkflowsView({ selectedId }: { selectedId: string | null }) {
  const pages = useCursorPages(PAGE_SIZE);
  const [creating, setCreating] = useState(false);
  const page = useWorkflowsPage(pages.query);
  const pager = pages.controls(page.data, page.isFetching);
  const total = pager.total;
  return (
    <MasterDetail
      listLabel="Workflows"
      detailLabel="Workflow"
      selected={selectedId}
      list={
        <>
          <header className="master-head">
            <h1>Workflows</h1>
            <button type="button" className="btn primary small" onClick={() => setCreating(true)}>
              + New workflow
            </button>
          </header>
          <ErrorNote
            error={page.error}
            title="Could not load workflows"
            onRetry={() => void page.refetch()}
          />
          {page.isPending && <Spinner label="Loading workflows" showLabel />}
          {page.data && page.data.data.length === 0 && <div className="empty">No workflows yet.</div>}
          <ul className="item-list" aria-label="Workflow list">
            {page.data?.data.map((w) => (
              <li key={w.id} className={w.id === selectedId ? "item selected" : "item"}>
                <a href={`#/workflows/${encodeURIComponent(w.id)}`} className="item-main">
                  <span className="item-title">{w.name}</span>
                  <span className="item-sub muted">
                    {w.id} · {w.steps.length} {w.steps.length === 1 ? "step" : "steps"}
                    {w.active ? "" : " · inactive"}
                  </span>
                </a>
              </li>
            ))}
          </ul>
          {total > 0 && <Pager noun={["workflow", "workflows"]} {...pager} />}
        </>
      }
      detail={
        selectedId ? (
          <WorkflowDetail key={selectedId} id={selectedId} />
        ) : (
          <div className="empty big">Select a workflow, or create one.</div>
        )
      }
    >
      {creating && (
        <CreateWorkflowDialog
          onClose={() => setCreating(false)}
          onCreated={(w) => {
            setCreating(false);
            pages.reset();
            navigate("workflows", w.id);
          }}
        />
      )}
    </MasterDetail>
  );
}
