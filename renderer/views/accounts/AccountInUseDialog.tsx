/**
 * The server refused to delete an account because sources or workflow steps still use it (409
 * `account_in_use`): say so in plain words, and list what uses it from the answer's `details`,
 * with a link to each source or workflow whose id we recognise.
 */
import type { Account } from "../../../shared/resources/index.js";
import { routeHref } from "../../app/router.js";
import { Modal } from "../../ui/Modal.js";

export interface InUse {
  account: Account;
  /** One per prop that references the account: `message` names the holder (`source "x" (dc_x), prop pg`). */
  details: { path: string; message: string }[];
}

/** Where a detail's holder is in the dashboard: the first source or workflow id in it. */
export function holderLink(detail: { path: string; message: string }): string | null {
  const text = `${detail.path} ${detail.message}`;
  const source = /\b(dc_[A-Za-z0-9]+)\b/.exec(text);
  if (source) return routeHref("sources", source[1]);
  const workflow = /\b(p_[A-Za-z0-9]+)\b/.exec(text);
  return workflow ? routeHref("workflows", workflow[1]) : null;
}

export function AccountInUseDialog({ inUse, onClose }: { inUse: InUse; onClose: () => void }) {
  const { account, details } = inUse;
  return (
    <Modal
      title={`${account.name} is still in use`}
      role="alertdialog"
      onClose={onClose}
      footer={
        <button type="button" className="btn primary" onClick={onClose}>
          OK
        </button>
      }
    >
      <p>
        <strong>{account.name}</strong> was not deleted: {details.length === 1 ? "a source or workflow step uses" : "sources or workflow steps use"}{" "}
        it, and would stop working without its credentials. Point {details.length === 1 ? "it" : "each of them"} at
        another account (or delete {details.length === 1 ? "it" : "them"}) first, then delete the account.
      </p>
      {details.length > 0 ? (
        <>
          <h3 className="form-section">Used by</h3>
          <ul className="in-use-list" aria-label={`What uses ${account.name}`}>
            {details.map((d, i) => {
              const href = holderLink(d);
              return (
                <li key={i}>
                  {href ? (
                    <a href={href} onClick={onClose}>
                      {d.message || d.path}
                    </a>
                  ) : (
                    d.message || d.path
                  )}
                </li>
              );
            })}
          </ul>
        </>
      ) : (
        <p className="muted">The server did not say which.</p>
      )}
    </Modal>
  );
}
