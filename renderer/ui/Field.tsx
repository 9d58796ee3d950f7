import type { ReactNode } from "react";

/** A labelled form field with a hint, or its error (announced, and prefixed with the label). */
export function Field(props: { id: string; label: string; error?: string | undefined; hint?: string; children: ReactNode }) {
  return (
    <div className={props.error ? "field invalid" : "field"}>
      <label htmlFor={props.id}>{props.label}</label>
      {props.children}
      {props.hint && !props.error && <div className="hint">{props.hint}</div>}
      {props.error && (
        <div className="field-error" role="alert">
          {props.label}: {props.error}
        </div>
      )}
    </div>
  );
}
