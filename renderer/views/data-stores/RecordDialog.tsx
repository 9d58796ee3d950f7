/**
 * Adding or editing one record: its key (new records only), its value as JSON in the code editor
 * (marked where it does not parse), and its TTL. Saving replaces the value and the expiry: an
 * empty TTL means the record never expires.
 */
import { useMutation } from "@tanstack/react-query";
import { useState } from "react";
import {
  DATA_STORE_LIMITS,
  dataStoreKeyProblem,
  dataStoreValueText,
  type DataStoreRecord,
} from "../../../shared/resources/index.js";
import { call } from "../../state/bridge.js";
import { CodeEditor } from "../../ui/CodeEditor.js";
import { ErrorNote } from "../../ui/ErrorNote.js";
import { Field } from "../../ui/Field.js";
import { Modal } from "../../ui/Modal.js";
import { Spinner } from "../../ui/Spinner.js";
import { toast } from "../../ui/Toasts.js";

/** Seconds left until `expiresAtMs`, rounded up; empty when it never expires. */
const ttlLeft = (expiresAtMs: number | null) =>
  expiresAtMs === null ? "" : String(Math.max(1, Math.ceil((expiresAtMs - Date.now()) / 1000)));

interface Errors {
  key?: string | undefined;
  value?: string | undefined;
  ttl?: string | undefined;
}

/** Why the TTL field's text is not a TTL; undefined when it is one (or empty). */
function ttlProblem(text: string): string | undefined {
  if (text.trim() === "") return undefined;
  const n = Number(text);
  if (!Number.isInteger(n) || n < 1) return "a whole number of seconds, at least 1 (empty: never expires)";
  if (n > DATA_STORE_LIMITS.ttlSeconds) return `at most ${DATA_STORE_LIMITS.ttlSeconds} seconds`;
  return undefined;
}

function parseValue(text: string): { value: unknown } | { problem: string } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    return { problem: `not JSON: ${(err as Error).message}` };
  }
  const checked = dataStoreValueText(value);
  return "problem" in checked ? checked : { value };
}

export function RecordDialog(props: {
  storeId: string;
  existing?: DataStoreRecord;
  onClose: () => void;
  onSaved: () => void;
}) {
  const { storeId, existing, onClose, onSaved } = props;
  const [key, setKey] = useState(existing?.key ?? "");
  const [json, setJson] = useState(existing ? JSON.stringify(existing.value, null, 2) : "");
  const [ttl, setTtl] = useState(existing ? ttlLeft(existing.expires_at_ms) : "");
  const [errors, setErrors] = useState<Errors>({});
  const save = useMutation({
    mutationFn: (v: { key: string; value: unknown; ttl: number | null }) =>
      call("putDataStoreRecord", storeId, v.key, { value: v.value, ttl_seconds: v.ttl }),
    onSuccess: (r) => {
      onSaved();
      toast(existing ? `Saved ${r.key}` : `Added ${r.key}`);
      onClose();
    },
  });
  const submit = () => {
    const parsed = parseValue(json);
    const errs: Errors = {
      key: existing ? undefined : key === "" ? "enter a key" : dataStoreKeyProblem(key),
      value:
        json.trim() === ""
          ? 'enter a JSON value, e.g. {"count": 1} or "text"'
          : "problem" in parsed
            ? parsed.problem
            : undefined,
      ttl: ttlProblem(ttl),
    };
    setErrors(errs);
    if (errs.key || errs.value || errs.ttl || !("value" in parsed)) return;
    save.mutate({
      key: existing?.key ?? key,
      value: parsed.value,
      ttl: ttl.trim() === "" ? null : Number(ttl),
    });
  };
  const title = existing ? `Edit ${existing.key}` : "Add record";
  const busy = save.isPending;
  return (
    <Modal
      title={title}
      onClose={onClose}
      busy={busy}
      wide
      footer={
        <>
          {busy && <Spinner label="Saving" />}
          <button type="button" className="btn" onClick={onClose} disabled={busy}>
            Cancel
          </button>
          <button type="submit" form="record-form" className="btn primary" disabled={busy}>
            {existing ? "Save" : "Add record"}
          </button>
        </>
      }
    >
      <form
        id="record-form"
        aria-label={title}
        onSubmit={(e) => {
          e.preventDefault();
          submit();
        }}
      >
        {!existing && (
          <Field
            id="record-key"
            label="Key"
            error={errors.key}
            hint={`Up to ${DATA_STORE_LIMITS.keyBytes} bytes`}
          >
            <input
              id="record-key"
              value={key}
              onChange={(e) => setKey(e.target.value)}
              autoComplete="off"
              spellCheck={false}
              disabled={busy}
              data-autofocus
            />
          </Field>
        )}
        <div className={errors.value ? "field invalid" : "field"}>
          <CodeEditor label="Value (JSON)" language="json" value={json} onChange={setJson} minHeight={120} />
          {errors.value && (
            <div className="field-error" role="alert">
              Value: {errors.value}
            </div>
          )}
        </div>
        <Field
          id="record-ttl"
          label="TTL in seconds"
          error={errors.ttl}
          hint="Empty: never expires. The record reads as absent once it expires."
        >
          <input
            id="record-ttl"
            inputMode="numeric"
            value={ttl}
            onChange={(e) => setTtl(e.target.value)}
            autoComplete="off"
            disabled={busy}
          />
        </Field>
        <ErrorNote
          error={save.error}
          title={existing ? `Could not save ${existing.key}` : "Could not add the record"}
        />
      </form>
    </Modal>
  );
}
