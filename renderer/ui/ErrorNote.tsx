import { describeError } from "../state/errors.js";

/**
 * An error shown where it happened, in words a user understands, with a retry when one makes
 * sense. Renders nothing for a null error.
 */
export function ErrorNote(props: {
  error: unknown;
  title?: string;
  onRetry?: () => void;
  onDismiss?: () => void;
}) {
  const { error, title, onRetry, onDismiss } = props;
  if (error === null || error === undefined) return null;
  const d = describeError(error);
  return (
    <div role="alert" className="error-note">
      <div className="error-text">
        <strong>{title ?? d.title}</strong>
        <span>{d.message}</span>
        {d.details.length > 0 && (
          <ul>
            {d.details.map((x, i) => (
              <li key={i}>
                {x.path ? <code>{x.path}</code> : null} {x.message}
              </li>
            ))}
          </ul>
        )}
        {d.code && <span className="error-code">code: {d.code}</span>}
      </div>
      <div className="error-actions">
        {onRetry && (
          <button type="button" className="btn small" onClick={onRetry}>
            Try again
          </button>
        )}
        {onDismiss && (
          <button type="button" className="btn small ghost" aria-label="Dismiss error" onClick={onDismiss}>
            ×
          </button>
        )}
      </div>
    </div>
  );
}
