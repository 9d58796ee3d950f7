// @vitest-environment happy-dom
import { CompletionContext, type CompletionResult } from "@codemirror/autocomplete";
import { javascript } from "@codemirror/lang-javascript";
import { ensureSyntaxTree } from "@codemirror/language";
import { EditorState } from "@codemirror/state";
import { EditorView } from "@codemirror/view";
import { fireEvent, render, screen } from "@testing-library/react";
import { describe, expect, it, vi } from "vitest";
import { CodeEditor } from "./CodeEditor.js";
import { stepCompletions } from "./code/completions.js";
import { syntaxDiagnostics } from "./code/syntaxLint.js";
import { Modal } from "./Modal.js";

const labels = (doc: string, earlier: string[] = []) => {
  const state = EditorState.create({ doc });
  const r = stepCompletions(() => earlier)(new CompletionContext(state, doc.length, false)) as CompletionResult | null;
  return r?.options.map((o) => o.label) ?? null;
};

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
    expect(screen.getByRole("textbox", { name: "Component code (read only)" }).getAttribute("aria-readonly")).toBe("true");
  });

  it("completes $. methods and the steps before this one", () => {
    expect(labels("$.")).toEqual(["respond", "export", "send.emit", "flow.exit", "flow.delay", "summary"]);
    expect(labels("return steps.", ["a", "b"])).toEqual(["trigger", "a", "b"]);
    expect(labels("const x = 1")).toBeNull();
  });

  it("marks what does not parse, and nothing in code that does", () => {
    expect(diagnostics("export default { run() { return 1; } };\n")).toEqual([]);
    expect(diagnostics("const x = ;\nreturn x;")).toEqual(["Syntax error at line 1, column 11"]);
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
