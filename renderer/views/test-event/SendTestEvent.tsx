/**
 * "Send test event" on an HTTP source or workflow: a button that opens a panel to compose a
 * request (method, path, headers, a JSON body checked as you type), sent by the host to the
 * emitter's own endpoint (`sendTestRequest`: the page never reaches the network), with the
 * response shown whole. The event it makes arrives in the live table below like any other. The
 * host keeps the last few requests (never a secret header) to load or send again.
 */
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useId, useState } from "react";
import {
  TEST_REQUEST_METHODS,
  TestRequestHeader,
  type SavedTestRequest,
  type TestRequestInput,
  type TestResponse,
} from "../../../shared/bridge.js";
import { call } from "../../state/bridge.js";
import { relativeTime } from "../../state/format.js";
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

/** The button and, once opened, the panel. */
export function SendTestEvent({ emitterId }: { emitterId: string }) {
  const [open, setOpen] = useState(false);
  const panelId = useId();
  return (
    <>
      <button
        type="button"
        className="btn small"
        aria-expanded={open}
        aria-controls={panelId}
        onClick={() => setOpen((o) => !o)}
      >
        Send test event
      </button>
      {open && <SendTestEventPanel id={panelId} emitterId={emitterId} onClose={() => setOpen(false)} />}
    </>
  );
}

function SendTestEventPanel(props: { id: string; emitterId: string; onClose: () => void }) {
  const qc = useQueryClient();
  const [method, setMethod] = useState<TestRequestInput["method"]>("POST");
  const [path, setPath] = useState("/");
  const [headers, setHeaders] = useState("Content-Type: application/json");
  const [body, setBody] = useState(DEFAULT_BODY);
  const recent = useQuery({
    queryKey: testRequestsKey(props.emitterId),
    queryFn: () => call("listTestRequests", props.emitterId),
  });
  const send = useMutation({
    mutationFn: (req: TestRequestInput) => call("sendTestRequest", props.emitterId, req),
    onSettled: () => void qc.invalidateQueries({ queryKey: testRequestsKey(props.emitterId) }),
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

  return (
    <section id={props.id} className="card test-event" aria-label="Send test event">
      <div className="section-head">
        <h3>Send test event</h3>
        <button type="button" className="btn small ghost" onClick={props.onClose}>
          Close
        </button>
      </div>
      <form
        className="test-event-form"
        onSubmit={(e) => {
          e.preventDefault();
          if (invalid || "error" in parsedHeaders) return;
          send.mutate({ method, path, headers: parsedHeaders.headers, body });
        }}
      >
        <div className="test-event-line">
          <div className="field">
            <label htmlFor={f("method")}>Method</label>
            <select
              id={f("method")}
              value={method}
              onChange={(e) => setMethod(e.target.value as TestRequestInput["method"])}
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
            rows={4}
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
        <div className="form-actions">
          {send.isPending && <Spinner label="Sending" />}
          <button type="submit" className="btn primary" disabled={invalid || send.isPending}>
            Send
          </button>
        </div>
      </form>
      <ErrorNote error={send.error} title="Could not send the request" onDismiss={() => send.reset()} />
      {send.data && <TestResponseView response={send.data} />}
      {recent.data && recent.data.length > 0 && (
        <div className="test-event-recent">
          <h4>Recent requests</h4>
          <ul aria-label="Recent requests">
            {recent.data.map((r) => (
              <li key={r.sentAt}>
                <code>
                  {r.method} {r.path || "/"}
                </code>
                <span className="muted small">{relativeTime(r.sentAt)}</span>
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
    </section>
  );
}

function TestResponseView({ response }: { response: TestResponse }) {
  let pretty = response.body;
  try {
    pretty = JSON.stringify(JSON.parse(response.body), null, 2);
  } catch {
    // Not JSON: shown as it came.
  }
  const ok = response.status >= 200 && response.status < 300;
  return (
    <div className="test-event-response" role="region" aria-label="Response">
      <div className="test-event-status">
        <span className={ok ? "status-pill ok" : "status-pill bad"} role="status">
          {response.status} {response.statusText}
        </span>
        <span className="muted small">{response.durationMs} ms</span>
      </div>
      <dl className="test-event-headers" aria-label="Response headers">
        {response.headers.map(([name, value], i) => (
          <div key={`${name}-${i}`}>
            <dt>{name}</dt>
            <dd>{value}</dd>
          </div>
        ))}
      </dl>
      <pre className="test-event-body" aria-label="Response body" tabIndex={0}>
        {pretty || "(empty body)"}
        {response.truncated && "\n… (cut at 64 KiB)"}
      </pre>
    </div>
  );
}
