/** A version diff: the changed settings, then each step's unified line diff (unchanged steps in one line). */
import type { VersionDiff } from "./diffVersions.js";

const SIGN = { add: "+", del: "-", same: " ", hunk: "" } as const;

export function DiffView({ diff, a, b }: { diff: VersionDiff; a: number; b: number }) {
  const changed = diff.steps.filter((s) => s.status !== "unchanged" || s.moved);
  const same = diff.steps.filter((s) => s.status === "unchanged" && !s.moved);
  if (diff.fields.length === 0 && changed.length === 0)
    return <p className="muted">Versions {a} and {b} have the same name, settings and steps.</p>;
  return (
    <div className="version-diff">
      {diff.fields.length > 0 && (
        <table className="data-table diff-fields">
          <caption className="sr-only">Settings changed from version {a} to {b}</caption>
          <thead>
            <tr>
              <th scope="col">Setting</th>
              <th scope="col">Version {a}</th>
              <th scope="col">Version {b}</th>
            </tr>
          </thead>
          <tbody>
            {diff.fields.map((f) => (
              <tr key={f.field}>
                <th scope="row">{f.field}</th>
                <td>
                  <code>{f.before}</code>
                </td>
                <td>
                  <code>{f.after}</code>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {changed.map((s) => (
        <section key={s.name} className="diff-step" aria-label={`Step ${s.name}: ${s.status}`}>
          <h4>
            Step <code>{s.name}</code> <span className={`chip diff-${s.status}`}>{s.status}</span>
            {s.moved && (
              <span className="muted">
                {" "}
                moved from position {s.moved.from} to {s.moved.to}
              </span>
            )}
          </h4>
          {s.status !== "unchanged" && (
            <pre className="diff-lines" tabIndex={0} aria-label={`Changes of step ${s.name}`}>
              {s.lines.map((l, i) => (
                <span key={i} className={`diff-line diff-${l.kind}`}>
                  {SIGN[l.kind]}
                  {l.text}
                  {"\n"}
                </span>
              ))}
            </pre>
          )}
        </section>
      ))}
      {same.length > 0 && (
        <p className="muted">
          Unchanged: {same.map((s) => s.name).join(", ")}.
        </p>
      )}
    </div>
  );
}
