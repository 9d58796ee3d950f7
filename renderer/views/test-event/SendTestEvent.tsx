/**
 * "Send test event" on an HTTP source or workflow: a button that opens a side panel to compose a
 * request (method, path, headers, a JSON body checked as you type), sent by the host to the
 * emitter's own endpoint (`sendTestRequest`: the page never reaches the network), with the
 * response shown whole. The panel sits beside the page, which makes room for it, so the live
 * table stays in view and the event is seen arriving; Send and the answer are pinned at the
 * panel's foot, never scrolled away. A workflow's answer names its run (`x-headwater-run-id`),
 * linked to the run. An inactive target says so before anything is sent (its endpoint would
 * answer 404), with a button to activate it. The host keeps the last few requests (never a
 * secret header) to load or send again.
 */
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useId, useRef, useState } from "react";
import {
  TEST_REQUEST_METHODS,
  TestRequestHeader,
  type SavedTestRequest,
  type TestRequestInput,
  type TestResponse,
} from "../../../shared/bridge.js";
import { call } from "../../state/bridge.js";
import { runHref } from "../../app/router.js";
import { absoluteTime, formatWhen } from "../../state/format.js";
import { ErrorNote } from "../../ui/ErrorNote.js";
import { Spinner } from "../../ui/Spinner.js";

const testRequestsKey = (emitterId: string) => ["testRequests", emitterId] as const;

const DEFAULT_BODY = '{\n  "hello": "world"\n}';

/** `Name: value` per line → headers, or the first line that is not one. */
export function parseHeaders(text: string): { headers: TestRequestInput["headers"] } | { error: string } {
  const headers: TestRequestInput["headers"] = [];
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!.trim();
    if (!line) continue;
    const colon = line.indexOf(":");
    const parsed = TestRequestHeader.safeParse({
      name: line.slice(0, colon).trim(),
      value: line.slice(colon + 1).trim(),
    });
    if (colon <= 0 || !parsed.success) return { error: `line ${i + 1} is not "Name: value"` };
    headers.push(parsed.data);
  }
  return { headers };
}

/** Why `text` is not a JSON body, or null when it is one (empty is no body). */
export function jsonProblem(text: string): string | null {
  if (text.trim() === "") return null;
  try {
    JSON.parse(text);
    return null;
  } catch (err) {
    return err instanceof Error ? err.message : "not valid JSON";
  }
}

const headersText = (h: TestRequestInput["headers"]) => h.map((x) => `${x.name}: ${x.value}`).join("\n");

/** The source or workflow the requests go to. */
export interface TestTarget {
  id: string;
  kind: "source" | "workflow";
  name: string;
  active: boolean;
}

/** The header a workflow's endpoint names its run with. */
const RUN_HEADER = "x-headwater-run-id";

/** The button and, once opened, the panel. */
export function SendTestEvent({ target, onActivate }: { target: TestTarget; onActivate?: () => void }) {
  const [open, setOpen] = useState(false);
  const panelId = useId();
  const button = useRef<HTMLButtonElement>(null);
  return (
    <>
      <button
        ref={button}
        type="button"
        className="btn small"
        aria-expanded={open}
        aria-controls={panelId}
        onClick={() => setOpen((o) => !o)}
      >
        Send test event
      </button>
      {open && (
        <SendTestEventPanel
          id={panelId}
          target={target}
          onActivate={onActivate}
          onClose={() => {
            setOpen(false);
            button.current?.focus();
          }}
        />
      )}
    </>
  );
}

function SendTestEventPanel(props: { id: string; target: TestTarget; onActivate?: () => void; onClose: () => void }) {
  const { target } = props;
  const emitterId = target.id;
  const qc = useQueryClient();
  const [method, setMethod] = useState<TestRequestInput["method"]>("POST");
  const [path, setPath] = useState("/");
  const [headers, setHeaders] = useState("Content-Type: application/json");
  const [body, setBody] = useState(DEFAULT_BODY);
  const recent = useQuery({
    queryKey: testRequestsKey(emitterId),
    queryFn: () => call("listTestRequests", emitterId),
  });
  const send = useMutation({
    mutationFn: (req: TestRequestInput) => call("sendTestRequest", emitterId, req),
    onSettled: () => void qc.invalidateQueries({ queryKey: testRequestsKey(emitterId) }),
  });

  const bodyProblem = jsonProblem(body);
  const parsedHeaders = parseHeaders(headers);
  const pathProblem = /^(\/[^\s#]*)?$/.test(path) ? null : "starts with / and has no spaces";
  const invalid = !!bodyProblem || "error" in parsedHeaders || !!pathProblem;
  const load = (r: SavedTestRequest) => {
    setMethod(r.method);
    setPath(r.path || "/");
    setHeaders(headersText(r.headers));
    setBody(r.body);
  };
  const f = (name: string) => `${props.id}-${name}`;

  const submit = () => {
    if (invalid || "error" in parsedHeaders) return;
    send.mutate({ method, path, headers: parsedHeaders.headers, body });
  };

  return (
    <section
      id={props.id}
      className="test-event-panel"
      aria-label="Send test event"
      onKeyDown={(e) => {
        if (e.key === "Escape") {
          e.stopPropagation();
          props.onClose();
        }
      }}
    >
      <div className="test-event-head">
        <h3>
          Send test event <span className="muted">to {target.name}</span>
        </h3>
        <button type="button" className="btn small ghost" onClick={props.onClose}>
          Close
        </button>
      </div>
      <div className="test-event-scroll">
        {!target.active && (
          <div className="notice warn" role="note">
            <p>
              <strong>{target.name} is inactive:</strong> its endpoint refuses requests (404) and it emits
              nothing until it is activated.
            </p>
            {props.onActivate && (
              <button type="button" className="btn small" onClick={props.onActivate}>
                Activate {target.kind}
              </button>
            )}
          </div>
        )}
        <form
          id={f("form")}
          className="test-event-form"
          onSubmit={(e) => {
            e.preventDefault();
            submit();
          }}
        >
          <div className="test-event-line">
            <div className="field">
              <label htmlFor={f("method")}>Method</label>
              <select
                id={f("method")}
                value={method}
                onChange={(e) => setMethod(e.target.value as TestRequestInput["method"])}
                autoFocus
              >
                {TEST_REQUEST_METHODS.map((m) => (
                  <option key={m}>{m}</option>
                ))}
              </select>
            </div>
            <div className={pathProblem ? "field grow invalid" : "field grow"}>
              <label htmlFor={f("path")}>Path</label>
              <input
                id={f("path")}
                value={path}
                onChange={(e) => setPath(e.target.value)}
                aria-invalid={pathProblem ? true : undefined}
                aria-describedby={pathProblem ? f("path-error") : undefined}
                spellCheck={false}
              />
              {pathProblem && (
                <div className="field-error" id={f("path-error")}>
                  Path: {pathProblem}
                </div>
              )}
            </div>
          </div>
          <div className={"error" in parsedHeaders ? "field invalid" : "field"}>
            <label htmlFor={f("headers")}>Headers</label>
            <textarea
              id={f("headers")}
              className="mono"
              rows={2}
              value={headers}
              onChange={(e) => setHeaders(e.target.value)}
              aria-invalid={"error" in parsedHeaders ? true : undefined}
              aria-describedby={f("headers-help")}
              spellCheck={false}
            />
            <div className={"error" in parsedHeaders ? "field-error" : "hint"} id={f("headers-help")}>
              {"error" in parsedHeaders
                ? `Headers: ${parsedHeaders.error}`
                : "One per line, Name: value. Headers that look like credentials are sent but never kept."}
            </div>
          </div>
          <div className={bodyProblem ? "field invalid" : "field"}>
            <label htmlFor={f("body")}>Body</label>
            <textarea
              id={f("body")}
              className="mono"
              rows={5}
              value={body}
              onChange={(e) => setBody(e.target.value)}
              aria-invalid={bodyProblem ? true : undefined}
              aria-describedby={f("body-help")}
              spellCheck={false}
            />
            <div className={bodyProblem ? "field-error" : "hint"} id={f("body-help")} aria-live="polite">
              {bodyProblem ? `Body is not valid JSON: ${bodyProblem}` : "JSON, or empty for no body."}
            </div>
          </div>
        </form>
        {recent.data && recent.data.length > 0 && (
          <div className="test-event-recent">
            <h4>Recent requests</h4>
            <ul aria-label="Recent requests">
              {recent.data.map((r) => (
                <li key={r.sentAt}>
                  <code>
                    {r.method} {r.path || "/"}
                  </code>
                  <span className="muted small" title={absoluteTime(r.sentAt)}>
                    {formatWhen(r.sentAt)}
                  </span>
                  <span className="spacer" />
                  <button type="button" className="btn small ghost" onClick={() => load(r)}>
                    Load
                    <span className="sr-only">
                      {" "}
                      {r.method} {r.path || "/"}
                    </span>
                  </button>
                  <button
                    type="button"
                    className="btn small"
                    disabled={send.isPending}
                    onClick={() =>
                      send.mutate({ method: r.method, path: r.path, headers: r.headers, body: r.body })
                    }
                  >
                    Send again
                    <span className="sr-only">
                      {" "}
                      {r.method} {r.path || "/"}
                    </span>
                  </button>
                </li>
              ))}
            </ul>
          </div>
        )}
      </div>
      {/* Pinned at the panel's foot: Send and its answer are always in view. */}
      <div className="test-event-foot">
        <div className="form-actions">
          {send.isPending && <Spinner label="Sending" />}
          <button type="submit" form={f("form")} className="btn primary" disabled={invalid || send.isPending}>
            Send
          </button>
        </div>
        <ErrorNote error={send.error} title="Could not send the request" onDismiss={() => send.reset()} />
        {send.data && <TestResponseView response={send.data} target={target} />}
      </div>
    </section>
  );
}

function TestResponseView({ response, target }: { response: TestResponse; target: TestTarget }) {
  let pretty = response.body;
  try {
    pretty = JSON.stringify(JSON.parse(response.body), null, 2);
  } catch {
    // Not JSON: shown as it came.
  }
  const ok = response.status >= 200 && response.status < 300;
  const runId = target.kind === "workflow" ? response.headers.find(([n]) => n.toLowerCase() === RUN_HEADER)?.[1] : undefined;
  return (
    <div className="test-event-response" role="region" aria-label="Response">
      <div className="test-event-status">
        <span className={ok ? "status-pill ok" : "status-pill bad"} role="status">
          {response.status} {response.statusText}
        </span>
        <span className="muted small">{response.durationMs} ms</span>
        {runId && (
          <a href={runHref(target.id, runId)} title={`run ${runId}`}>
            Open the run
          </a>
        )}
        {ok && target.kind === "source" && <span className="muted small">The event is in the table.</span>}
      </div>
      <pre className="test-event-body" aria-label="Response body" tabIndex={0}>
        {pretty || "(empty body)"}
        {response.truncated && "\n… (cut at 64 KiB)"}
      </pre>
      <details className="test-event-headers-box">
        <summary>Response headers ({response.headers.length})</summary>
        <dl className="test-event-headers" aria-label="Response headers">
          {response.headers.map(([name, value], i) => (
            <div key={`${name}-${i}`}>
              <dt>{name}</dt>
              <dd>{value}</dd>
            </div>
          ))}
        </dl>
      </details>
    </div>
  );
}
