/** One workflow: endpoint, active switch, steps (its draft, edited), history, settings, delete, its events and $errors, and its runs. */
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import type { Workflow } from "../../../shared/resources/index.js";
import { navigate, useRoute } from "../../app/router.js";
import { call } from "../../state/bridge.js";
import { errorLine } from "../../state/errors.js";
import { Time } from "../../ui/Time.js";
import { keys, useWorkflow } from "../../state/queries.js";
import { ConfirmDialog } from "../../ui/ConfirmDialog.js";
import { CopyButton } from "../../ui/CopyButton.js";
import { ErrorNote } from "../../ui/ErrorNote.js";
import { Loading } from "../../ui/Spinner.js";
import { Switch } from "../../ui/Switch.js";
import { Tabs } from "../../ui/Tabs.js";
import { toast } from "../../ui/Toasts.js";
import { EventsPanel } from "../events/EventsPanel.js";
import { Wiring } from "../flow/Wiring.js";
import { SendTestEvent } from "../test-event/SendTestEvent.js";
import { StepsBuilder } from "./builder/StepsBuilder.js";
import { HistoryPanel } from "./history/HistoryPanel.js";
import { RunsPanel } from "./runs/RunsPanel.js";
import { WorkflowSettings } from "./WorkflowSettings.js";
import { RunNowDialog } from "./triggers/RunNowDialog.js";

export function WorkflowDetail({ id }: { id: string }) {
  const wf = useWorkflow(id);
  const route = useRoute();
  const runId = route.id === id && route.rest[0] === "runs" ? (route.rest[1] ?? null) : null;
  const [tab, setTab] = useState<"events" | "runs" | "steps" | "history" | "settings">(runId ? "runs" : "events");
  // A run's address opens the Runs tab on it (also when it changes while this page is open).
  const [shownRunId, setShownRunId] = useState(runId);
  if (runId !== shownRunId) {
    setShownRunId(runId);
    if (runId) setTab("runs");
  }
  if (wf.isPending) return <Loading label="Loading workflow" />;
  if (wf.error || !wf.data)
    return (
      <ErrorNote error={wf.error} title="Could not load this workflow" onRetry={() => void wf.refetch()} />
    );
  const w = wf.data;
  return (
    <div className="source-detail">
      <WorkflowHeader workflow={w} />
      <Tabs
        label="Workflow sections"
        tabs={[
          { id: "events", label: "Events" },
          { id: "runs", label: "Runs" },
          { id: "steps", label: `Steps (${w.steps.length})` },
          { id: "history", label: "History" },
          { id: "settings", label: "Settings" },
        ]}
        value={tab}
        onChange={setTab}
      />
      {tab === "events" ? (
        <EventsPanel kind="workflow" emitterId={w.id} name={w.name} inactive={!w.active} />
      ) : tab === "runs" ? (
        <RunsPanel workflowId={w.id} openRunId={runId} />
      ) : tab === "settings" ? (
        <WorkflowSettings workflow={w} />
      ) : tab === "history" ? (
        <HistoryPanel workflow={w} />
      ) : (
        <StepsBuilder workflow={w} />
      )}
    </div>
  );
}

function WorkflowHeader({ workflow: w }: { workflow: Workflow }) {
  const qc = useQueryClient();
  const [confirmDelete, setConfirmDelete] = useState(false);
  const [runNow, setRunNow] = useState(false);
  const setActive = useMutation({
    mutationFn: (active: boolean) => call("updateWorkflow", w.id, { active }),
    onMutate: (active) => {
      const previous = w;
      qc.setQueryData(keys.workflow(w.id), { ...w, active });
      return { previous };
    },
    onError: (_e, _v, ctx) => ctx && qc.setQueryData(keys.workflow(w.id), ctx.previous),
    onSuccess: (saved) => {
      qc.setQueryData(keys.workflow(w.id), saved);
      void qc.invalidateQueries({ queryKey: ["workflows"] });
    },
  });
  return (
    <header className="detail-header">
      <div className="title-row">
        <h2 className="detail-title" title={w.name}>
          {w.name}
        </h2>
        <span className="spacer" />
        <label className="switch-label">
          <span>{w.active ? "Active" : "Inactive"}</span>
          <Switch
            label="Active"
            checked={w.active}
            busy={setActive.isPending}
            disabled={setActive.isPending}
            onChange={(a) => setActive.mutate(a)}
          />
        </label>
        {w.schedules !== undefined && (
          <button
            type="button"
            className="btn small"
            disabled={!w.active}
            title={w.active ? undefined : "Turn the workflow on to run it"}
            onClick={() => setRunNow(true)}
          >
            Run now
          </button>
        )}
        <button type="button" className="btn small danger" onClick={() => setConfirmDelete(true)}>
          Delete workflow
        </button>
      </div>
      {setActive.error && (
        <div role="alert" className="inline-error">
          Could not {w.active ? "deactivate" : "activate"} the workflow. {errorLine(setActive.error)}
        </div>
      )}
      <div className="meta-row muted">
        <code>{w.id}</code>
        <span>created <Time ms={w.created_at * 1000} /></span>
      </div>
      <div className="endpoint">
        <span className="muted">Endpoint</span>
        <code className="endpoint-url">{w.endpoint_url}</code>
        <CopyButton text={w.endpoint_url} label="Copy endpoint URL" />
      </div>
      <Wiring id={w.id} triggers />
      {w.endpoint_url && (
        <SendTestEvent
          target={{ id: w.id, kind: "workflow", name: w.name, active: w.active }}
          onActivate={() => setActive.mutate(true)}
        />
      )}
      {runNow && <RunNowDialog workflow={w} onClose={() => setRunNow(false)} />}
      {confirmDelete && (
        <ConfirmDialog
          title={`Delete ${w.name}?`}
          message={
            <p>The workflow, its events and its subscriptions will be deleted. This cannot be undone.</p>
          }
          confirmLabel="Delete workflow"
          onConfirm={async () => {
            await call("deleteWorkflow", w.id);
            qc.removeQueries({ queryKey: keys.workflow(w.id) });
            void qc.invalidateQueries({ queryKey: ["workflows"] });
            toast(`Deleted ${w.name}`);
            navigate("workflows");
          }}
          onClose={() => setConfirmDelete(false)}
        />
      )}
    </header>
  );
}
