/**
 * The Steps tab: the workflow's draft, edited. The first change makes the draft (from the current
 * version); every change after is saved to it (useDraftAutosave), so a reload finds it. Deploy makes
 * it the next version; Discard drops it. The page says which it shows: the draft or a version.
 * Tests (test/) run the draft on a chosen event, each step's result shown under it.
 */
import { useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import type { StepProblem, Workflow } from "../../../../shared/resources/index.js";
import { ErrorNote } from "../../../ui/ErrorNote.js";
import { Loading } from "../../../ui/Spinner.js";
import { AddActionStepDialog, type ActionStepValue } from "../AddActionStepDialog.js";
import { DeployBar } from "./DeployBar.js";
import { editSteps, freeName, move, nameProblem, newActionStep, newCodeStep, type EditStep } from "./draftModel.js";
import { StepCard } from "./StepCard.js";
import { useDraftAutosave, useDraftQuery } from "./useDraft.js";
import { ConfirmDialog } from "../../../ui/ConfirmDialog.js";
import { useBuilderTests } from "./test/useBuilderTests.js";
import { useStepTests, type StepTests } from "./test/useStepTests.js";

export function StepsBuilder({ workflow }: { workflow: Workflow }) {
  const draft = useDraftQuery(workflow.id);
  // Test results and the test event outlive a new start of the steps.
  const tests = useStepTests(workflow.id);
  // A new start (after a deploy, a discard, a restore) re-reads the steps from the server.
  const [generation, setGeneration] = useState(0);
  // The deploy message outlives a reload of the steps (it is typed for the deploy, not the steps).
  const [message, setMessage] = useState("");
  if (draft.isPending) return <Loading label="Loading the draft" />;
  if (draft.error)
    return <ErrorNote error={draft.error} title="Could not load the draft" onRetry={() => void draft.refetch()} />;
  return (
    <Builder
      key={`${workflow.version ?? 0}:${generation}`}
      workflow={workflow}
      initial={editSteps((draft.data ?? null)?.workflow.steps ?? workflow.steps)}
      restart={() => setGeneration((g) => g + 1)}
      message={message}
      setMessage={setMessage}
      tests={tests}
    />
  );
}

/** Focus on the element of `id` once the page shows it (after a dialog gave the focus back). */
const focusSoon = (id: string) => requestAnimationFrame(() => document.getElementById(id)?.focus());

type Dialog = { kind: "add-action" } | { kind: "edit-props"; key: string } | { kind: "delete"; key: string } | null;

function Builder(props: {
  workflow: Workflow;
  initial: EditStep[];
  restart: () => void;
  message: string;
  setMessage: (m: string) => void;
  tests: StepTests;
}) {
  const { workflow: w } = props;
  const qc = useQueryClient();
  const draft = useDraftQuery(w.id);
  const autosave = useDraftAutosave(w.id);
  const [steps, setSteps] = useState(props.initial);
  const [dialog, setDialog] = useState<Dialog>(null);
  const [deployProblems, setDeployProblems] = useState<StepProblem[]>([]);

  const change = (next: EditStep[]) => {
    setSteps(next);
    setDeployProblems([]);
    autosave.change(next);
  };
  const update = (key: string, s: EditStep) => change(steps.map((x) => (x.key === key ? s : x)));
  const moveStep = (i: number, by: -1 | 1) => {
    const key = steps[i]!.key;
    change(move(steps, i, by));
    // Keep the focus on the button that moved the step (or its twin at the list's end).
    requestAnimationFrame(() => {
      const el = document.getElementById(`move-${by < 0 ? "up" : "down"}-${key}`) as HTMLButtonElement | null;
      const twin = document.getElementById(`move-${by < 0 ? "down" : "up"}-${key}`);
      (el && !el.disabled ? el : twin)?.focus();
    });
  };
  // The focus goes to a new step's name, and after a delete to the next step (or the one before).
  const addStep = (s: EditStep) => {
    change([...steps, s]);
    focusSoon(`step-name-${s.key}`);
  };
  const deleteStep = (s: EditStep) => {
    const i = steps.indexOf(s);
    const next = steps[i + 1] ?? steps[i - 1];
    change(steps.filter((x) => x !== s));
    focusSoon(next ? `step-name-${next.key}` : `add-code-step-${w.id}`);
  };
  const problems = [...(draft.data?.problems ?? []), ...deployProblems];
  const testView = useBuilderTests({ tests: props.tests, steps, problems, flush: autosave.flush });
  const editing = dialog?.kind === "edit-props" ? steps.find((s) => s.key === dialog.key) : undefined;
  const deleting = dialog?.kind === "delete" ? steps.find((s) => s.key === dialog.key) : undefined;

  return (
    <div className="page builder">
      <DeployBar
        workflow={w}
        draft={draft.data ?? null}
        saveState={autosave.state}
        saveError={autosave.error}
        message={props.message}
        setMessage={props.setMessage}
        flush={autosave.flush}
        onDeployProblems={setDeployProblems}
        onDone={() => {
          autosave.reset();
          props.restart();
        }}
        reload={async () => {
          // The workflow, its draft and its versions as the server has them now.
          await qc.invalidateQueries({ queryKey: ["workflow", w.id] });
          autosave.reset();
          props.restart();
        }}
      />
      {testView.panel}
      {steps.map((s, i) => (
        <StepCard
          key={s.key}
          step={s}
          index={i}
          count={steps.length}
          earlierSteps={steps.slice(0, i).map((x) => x.name)}
          nameError={nameProblem(steps, s)}
          problems={problems.filter((p) => p.step === s.name)}
          declared={draft.data?.step_props?.[s.name]}
          onChange={(next) => update(s.key, next)}
          onMove={(by) => moveStep(i, by)}
          onDelete={() => setDialog({ kind: "delete", key: s.key })}
          onEditProps={() => setDialog({ kind: "edit-props", key: s.key })}
          test={testView.forStep(i)}
        />
      ))}
      {steps.length === 0 && <p className="muted">No steps. Add one to start.</p>}
      <div className="builder-add">
        <button type="button" className="btn small" id={`add-code-step-${w.id}`} onClick={() => addStep(newCodeStep(steps))}>
          Add a code step
        </button>
        <button type="button" className="btn small" onClick={() => setDialog({ kind: "add-action" })}>
          Add step from an action
        </button>
      </div>
      {dialog?.kind === "add-action" && (
        <AddActionStepDialog
          takenNames={steps.map((s) => s.name)}
          defaultName={freeName(steps)}
          onDone={(a: ActionStepValue) => addStep(newActionStep(a.name, a.action, a.props))}
          onClose={() => setDialog(null)}
        />
      )}
      {editing?.action && (
        <AddActionStepDialog
          takenNames={steps.filter((s) => s !== editing).map((s) => s.name)}
          defaultName={editing.name}
          editing={{ name: editing.name, action: editing.action, props: editing.props ?? {} }}
          onDone={(a) => update(editing.key, { ...editing, ...a })}
          onClose={() => setDialog(null)}
        />
      )}
      {deleting && (
        <ConfirmDialog
          title={`Delete step ${deleting.name}?`}
          message={<p>The step leaves the draft. The deployed version keeps it until the draft is deployed.</p>}
          confirmLabel="Delete step"
          onConfirm={() => deleteStep(deleting)}
          onClose={() => setDialog(null)}
        />
      )}
    </div>
  );
}
