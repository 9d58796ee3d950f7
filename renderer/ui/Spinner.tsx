/** A small progress indicator with words for screen readers (and for people, when `label` shows). */
export function Spinner(props: { label: string; showLabel?: boolean }) {
  return (
    <span role="status" className="spinner-wrap">
      <span className="spinner" aria-hidden="true" />
      {props.showLabel ? <span>{props.label}</span> : <span className="sr-only">{props.label}</span>}
    </span>
  );
}

/** A whole-panel loading state. */
export function Loading(props: { label: string }) {
  return (
    <div className="loading">
      <Spinner label={props.label} showLabel />
    </div>
  );
}
