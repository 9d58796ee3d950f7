// @vitest-environment happy-dom
import { CompletionContext, type CompletionResult } from "@codemirror/autocomplete";
import { javascript } from "@codemirror/lang-javascript";
import { ensureSyntaxTree } from "@codemirror/language";
import { EditorState } from "@codemirror/state";
import { EditorView } from "@codemirror/view";
import { act, fireEvent, render, screen } from "@testing-library/react";
import { describe, expect, it, vi } from "vitest";
import { CodeEditor } from "./CodeEditor.js";
import { stepCompletions } from "./code/completions.js";
import { jsonProblem } from "./code/json.js";
import { syntaxDiagnostics } from "./code/syntaxLint.js";
import { Modal } from "./Modal.js";

const complete = (doc: string, earlier: string[] = [], values?: Record<string, unknown>) => {
  const state = EditorState.create({ doc });
  return stepCompletions(
    () => earlier,
    () => values,
  )(new CompletionContext(state, doc.length, false)) as CompletionResult | null;
};
const labels = (doc: string, earlier: string[] = [], values?: Record<string, unknown>) =>
  complete(doc, earlier, values)?.options.map((o) => o.label) ?? null;

const diagnostics = (doc: string) => {
  const view = new EditorView({ state: EditorState.create({ doc, extensions: [javascript()] }) });
  ensureSyntaxTree(view.state, doc.length, 5000);
  const found = syntaxDiagnostics(view).map((d) => d.message);
  view.destroy();
  return found;
};

describe("the code editor", () => {
  it("is a named text box, read-only when asked", () => {
    render(
      <>
        <CodeEditor label="Code of step a" value="return 1;" onChange={() => {}} />
        <CodeEditor label="Component code (read only)" value="x" readOnly />
      </>,
    );
    expect(screen.getByRole("textbox", { name: "Code of step a" }).getAttribute("aria-readonly")).toBeNull();
    expect(
      screen.getByRole("textbox", { name: "Component code (read only)" }).getAttribute("aria-readonly"),
    ).toBe("true");
  });

  it("completes $. methods and the steps before this one", () => {
    expect(labels("$.")).toEqual(["respond", "export", "send.emit", "send.http", "flow.exit", "flow.delay"]);
    expect(labels("return steps.", ["a", "b"])).toEqual(["trigger", "a", "b"]);
    expect(labels("const x = 1")).toBeNull();
  });

  it("completes paths below a step's name from the last test, and the trigger's event", () => {
    const values = {
      trigger: { event: { body: { order: { id: 7, "total-cents": 900 } }, method: "POST" } },
      a: { $return_value: { ok: true, items: [1, 2] }, customer: "ada" },
      later: { $return_value: 1 },
    };
    expect(labels("steps.trigger.", ["a"], values)).toEqual(["event"]);
    expect(labels("x = steps.trigger.event.", ["a"], values)).toEqual(["body", "method"]);
    expect(labels("steps.trigger.event.body.order.to", ["a"], values)).toEqual(["id", "total-cents"]);
    expect(complete("steps.trigger.event.body.order.to", ["a"], values)?.from).toBe(
      "steps.trigger.event.body.order.".length,
    );
    expect(labels("steps.a.", ["a"], values)).toEqual(["$return_value", "customer"]);
    expect(labels("steps.a.$return_value.", ["a"], values)).toEqual(["ok", "items"]);
    // Nothing below a value that is no object, below an unknown key, or of a step that runs later.
    expect(labels("steps.a.customer.", ["a"], values)).toBeNull();
    expect(labels("steps.a.nope.", ["a"], values)).toBeNull();
    expect(labels("steps.later.", ["a"], values)).toBeNull();
    // Before any test: what every step has.
    expect(labels("steps.a.", ["a"])).toEqual(["$return_value"]);
  });

  it("completes a key that is no identifier as a bracketed string", () => {
    const values = { trigger: { event: { "content-type": "json" } } };
    const parent = document.createElement("div");
    const doc = "steps.trigger.event.";
    const view = new EditorView({ parent, state: EditorState.create({ doc }) });
    const r = complete(doc, [], values)!;
    const option = r.options[0]!;
    expect(option.label).toBe("content-type");
    (option.apply as (v: EditorView, c: unknown, from: number, to: number) => void)(
      view,
      option,
      r.from,
      doc.length,
    );
    expect(view.state.doc.toString()).toBe('steps.trigger.event["content-type"]');
    view.destroy();
  });

  it("marks what does not parse, and nothing in code that does", () => {
    expect(diagnostics("export default { run() { return 1; } };\n")).toEqual([]);
    expect(diagnostics("const x = ;\nreturn x;")).toEqual(["Syntax error at line 1, column 11"]);
  });

  it("says where typed JSON stops parsing, by line and column", () => {
    expect(jsonProblem('{"a": 1}')).toBeNull();
    expect(jsonProblem('{\n  "a": }')).toMatchObject({ line: 2, column: 8, message: "Unexpected token '}'" });
    expect(jsonProblem("[1 2]")).toMatchObject({ line: 1, column: 4 });
    expect(jsonProblem('{"a": 1')).toMatchObject({ line: 1, column: 8 });
    expect(jsonProblem("  ")?.message).toBe("Empty: type a JSON value, e.g. {}");
  });

  it("hands a long text over once typing pauses (or on blur), and keeps what is held over a render", () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "Date"] });
    try {
      const long = "// a line of a long step\n".repeat(1000);
      const onChange = vi.fn();
      const ui = (value: string) => <CodeEditor label="Long" value={value} onChange={onChange} />;
      const { rerender } = render(ui(long));
      const content = screen.getByRole("textbox", { name: "Long" });
      const view = EditorView.findFromDOM(content.closest(".cm-editor") as HTMLElement)!;
      const type = (text: string) => view.dispatch({ changes: { from: 0, insert: text } });
      type("a");
      type("b");
      expect(onChange).not.toHaveBeenCalled();
      // The owner re-renders with the text it has: what is held stays in the editor.
      rerender(ui(long));
      expect(view.state.doc.toString().startsWith("ba//")).toBe(true);
      act(() => void vi.advanceTimersByTime(150));
      expect(onChange.mock.calls).toEqual([[`ba${long}`]]);
      // Typing on and on goes at least every half second.
      for (let i = 0; i < 6; i++) {
        type("c");
        act(() => void vi.advanceTimersByTime(100));
      }
      expect(onChange).toHaveBeenCalledTimes(2);
      type("d");
      fireEvent.blur(content);
      expect(onChange).toHaveBeenCalledTimes(3);
      expect(onChange.mock.lastCall![0]).toBe(`dcccccc` + `ba${long}`);
    } finally {
      vi.useRealTimers();
    }
  });

  it("keeps a dialog open on Escape in the editor (Escape then Tab leaves the editor)", () => {
    const onClose = vi.fn();
    render(
      <Modal title="Edit" onClose={onClose}>
        <CodeEditor label="Component code" value="" onChange={() => {}} />
        <button type="button">Other</button>
      </Modal>,
    );
    fireEvent.keyDown(screen.getByRole("textbox", { name: "Component code" }), { key: "Escape" });
    expect(onClose).not.toHaveBeenCalled();
    fireEvent.keyDown(screen.getByRole("button", { name: "Other" }), { key: "Escape" });
    expect(onClose).toHaveBeenCalledTimes(1);
  });
});
