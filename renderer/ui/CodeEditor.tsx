import { useId } from "react";
import EditorImport from "react-simple-code-editor";
import Prism from "prismjs";

// A CommonJS package: bundlers and Node hand over either the component or its module object.
const Editor = ((EditorImport as unknown as { default?: unknown }).default ??
  EditorImport) as unknown as typeof EditorImport.default;

/**
 * A code editor: a plain textarea (so typing, undo and accessibility are the browser's) under a
 * Prism-highlighted copy of the text. JavaScript is what components and steps are written in.
 */
export function CodeEditor(props: {
  value: string;
  onChange?: (code: string) => void;
  label: string;
  readOnly?: boolean;
  minHeight?: number;
  id?: string;
}) {
  const { value, onChange, label, readOnly, minHeight = 220, id } = props;
  const autoId = useId();
  const textareaId = id ?? autoId;
  const grammar = Prism.languages.javascript;
  return (
    <div className="code-editor" style={{ minHeight }}>
      <label className="sr-only" htmlFor={textareaId}>
        {label}
      </label>
      <Editor
        value={value}
        onValueChange={(v) => onChange?.(v)}
        highlight={(code) => (grammar ? Prism.highlight(code, grammar, "javascript") : escapeHtml(code))}
        padding={12}
        readOnly={readOnly}
        textareaId={textareaId}
        spellCheck={false}
        style={{ minHeight }}
        className="code-editor-inner"
        textareaClassName="code-editor-textarea"
      />
    </div>
  );
}

function escapeHtml(s: string): string {
  return s.replace(/[&<>]/g, (c) => (c === "&" ? "&amp;" : c === "<" ? "&lt;" : "&gt;"));
}
