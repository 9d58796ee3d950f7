/**
 * A code editor on CodeMirror 6: JavaScript highlighted (colours are classes styled by
 * code-editor.css, so they follow `<html data-theme>`), syntax errors marked as you type, problems
 * the server found marked at their line, completion of `$.` and `steps.<name>...` paths. Tab indents; Escape
 * then Tab leaves the editor (CodeMirror's own rule), so the keyboard is never trapped.
 * `language: "json"` edits JSON instead (a test event): highlighted, and marked where it does not parse.
 */
import {
  autocompletion,
  closeBrackets,
  closeBracketsKeymap,
  completionKeymap,
} from "@codemirror/autocomplete";
import { defaultKeymap, history, historyKeymap, indentWithTab } from "@codemirror/commands";
import { javascript } from "@codemirror/lang-javascript";
import { bracketMatching, indentOnInput, syntaxHighlighting } from "@codemirror/language";
import { forceLinting, linter, lintGutter } from "@codemirror/lint";
import { Compartment, EditorState } from "@codemirror/state";
import { EditorView, highlightActiveLine, keymap, lineNumbers } from "@codemirror/view";
import { classHighlighter } from "@lezer/highlight";
import { useEffect, useId, useLayoutEffect, useRef } from "react";
import { changeRelay, type ChangeRelay } from "./code/changeRelay.js";
import { stepCompletions } from "./code/completions.js";
import { jsonDiagnostics, jsonLanguage } from "./code/json.js";
import { problemDiagnostics, syntaxDiagnostics, type CodeProblem } from "./code/syntaxLint.js";

export type { CodeProblem };

export function CodeEditor(props: {
  value: string;
  onChange?: (code: string) => void;
  label: string;
  readOnly?: boolean;
  minHeight?: number;
  id?: string;
  /** Names of the steps that run before this code (completed after `steps.`). */
  earlierSteps?: readonly string[];
  /** Problems found elsewhere (the server's parse of a draft), marked at their line. */
  problems?: readonly CodeProblem[];
  /** What `steps.<name>` held in the last test (and `trigger: {event}`), completed below the name. */
  stepValues?: Readonly<Record<string, unknown>>;
  /** Ctrl+Enter (Cmd+Enter): the action that runs this code (the builder's Test step). */
  onRun?: () => void;
  language?: "javascript" | "json";
}) {
  const { value, label, readOnly = false, minHeight = 220, id } = props;
  const autoId = useId();
  const host = useRef<HTMLDivElement>(null);
  const view = useRef<EditorView | null>(null);
  // The editor lives across renders; these refs hand it the latest props.
  const latest = useRef(props);
  useLayoutEffect(() => {
    latest.current = props;
  });
  const access = useRef(new Compartment());
  // The text the owner last had from here or gave (a render with it changes nothing), and the
  // hand-over of changes (code/changeRelay.ts: a long text goes once typing pauses).
  const handed = useRef(props.value);
  const relay = useRef<ChangeRelay | null>(null);

  useEffect(() => {
    const el = host.current;
    if (!el) return;
    const r = changeRelay((text) => {
      // Not the owner's own text back (a replace from outside, or typing undone before it went).
      if (text === handed.current) return;
      handed.current = text;
      latest.current.onChange?.(text);
    });
    relay.current = r;
    // After a hand-over, the Run key waits for the owner's render of it.
    const run = () => {
      const onRun = latest.current.onRun;
      if (!onRun) return false;
      if (r.flush()) setTimeout(() => latest.current.onRun?.(), 0);
      else onRun();
      return true;
    };
    const v = new EditorView({
      parent: el,
      state: EditorState.create({
        doc: latest.current.value,
        extensions: [
          lineNumbers(),
          history(),
          indentOnInput(),
          bracketMatching(),
          closeBrackets(),
          highlightActiveLine(),
          syntaxHighlighting(classHighlighter),
          lintGutter(),
          latest.current.language === "json" ? jsonExtensions() : javascriptExtensions(latest),
          keymap.of([
            { key: "Mod-Enter", run },
            ...closeBracketsKeymap,
            ...defaultKeymap,
            ...historyKeymap,
            ...completionKeymap,
            indentWithTab,
          ]),
          access.current.of(accessExtensions(latest.current)),
          EditorView.updateListener.of((u) => {
            if (u.docChanged) r.changed(u.view);
          }),
          EditorView.domEventHandlers({ blur: () => void r.flush() }),
        ],
      }),
    });
    view.current = v;
    return () => {
      r.flush();
      v.destroy();
      view.current = null;
    };
  }, []);

  // A value changed from outside (a reload, a discard) replaces the text; typing is already in it
  // (or held for a moment: a render with the value the owner had from here changes nothing).
  useEffect(() => {
    const v = view.current;
    if (!v || value === handed.current) return;
    handed.current = value;
    relay.current?.drop();
    if (v.state.doc.toString() !== value)
      v.dispatch({ changes: { from: 0, to: v.state.doc.length, insert: value } });
  }, [value]);

  useEffect(() => {
    view.current?.dispatch({
      effects: access.current.reconfigure(accessExtensions({ label, readOnly, id: id ?? autoId })),
    });
  }, [label, readOnly, id, autoId]);

  // Marked again when the problems change, not when a render hands over an equal list: a lint
  // walks the whole syntax tree, far too much to do on each keystroke of a long step.
  const problemsKey = JSON.stringify(props.problems ?? []);
  useEffect(() => {
    if (view.current) forceLinting(view.current);
  }, [problemsKey]);

  return (
    <div ref={host} className="code-editor" style={{ minHeight }} data-readonly={readOnly || undefined} />
  );
}

function javascriptExtensions(latest: { current: Parameters<typeof CodeEditor>[0] }) {
  return [
    javascript(),
    autocompletion({
      override: [
        stepCompletions(
          () => latest.current.earlierSteps ?? [],
          () => latest.current.stepValues,
        ),
      ],
    }),
    linter(
      (ev) =>
        ev.state.readOnly
          ? []
          : [...syntaxDiagnostics(ev), ...problemDiagnostics(ev, latest.current.problems ?? [])],
      { delay: 300 },
    ),
  ];
}

function jsonExtensions() {
  return [jsonLanguage, linter((ev) => (ev.state.readOnly ? [] : jsonDiagnostics(ev)), { delay: 300 })];
}

/** The editor's name, id and read-only state, on the element that takes the focus. */
function accessExtensions(p: { label: string; readOnly?: boolean; id?: string }) {
  return [
    EditorState.readOnly.of(Boolean(p.readOnly)),
    EditorView.contentAttributes.of({
      "aria-label": p.label,
      ...(p.id ? { id: p.id } : {}),
      ...(p.readOnly ? { "aria-readonly": "true" } : {}),
      spellcheck: "false",
      // Said outright (contenteditable alone is not seen as focusable by axe): a line longer than
      // the editor scrolls it sideways, and a scrolling region needs focusable content.
      tabindex: "0",
    }),
  ];
}
