/**
 * Connect an agent: the current connection's MCP URL, the MCP client configurations to paste
 * (stdio through `headwater mcp`, and Streamable HTTP to `<origin>/mcp`), where the key goes,
 * and a test that lists the server's tools through the host (which holds the key). The key is
 * never printed: configurations carry a placeholder. Full guide: docs/agents.md.
 */
import { useMutation } from "@tanstack/react-query";
import type { ReactNode } from "react";
import type { AgentConnectionTest, Profile } from "../../../shared/bridge.js";
import { call } from "../../state/bridge.js";
import { useHostInfo } from "../../state/queries.js";
import { CopyButton } from "../../ui/CopyButton.js";
import { ErrorNote } from "../../ui/ErrorNote.js";
import { Spinner } from "../../ui/Spinner.js";
import {
  API_KEY_PLACEHOLDER,
  envFor,
  firstSentence,
  httpConfig,
  isHostedService,
  profileMcpUrl,
  stdioConfig,
  stdioFindsConnection,
} from "./agentConfig.js";

/**
 * `profile`: the current connection. `admin`: whether its user is an administrator (who can give
 * an agent a user and key of its own), when known.
 */
export function AgentPanel({ profile, admin }: { profile: Profile; admin: boolean | undefined }) {
  const host = useHostInfo();
  const hosted = profile.baseUrl !== "" && isHostedService(profile.baseUrl);
  const mcpUrl = profileMcpUrl(profile);
  const keyStorage = host.data?.keyStorage;
  const stdioFinds = stdioFindsConnection(profile, keyStorage);
  const stdio = stdioFinds ? stdioConfig() : profile.baseUrl ? stdioConfig(envFor(profile)) : null;
  return (
    <section className="card agent-panel" aria-labelledby="agent-panel-title">
      <h2 id="agent-panel-title">Connect an agent</h2>
      <p className="muted small">
        An AI agent that speaks MCP (Claude, an IDE, any MCP client) can list and deploy sources, read, search
        and wait for events, and replay them, as your user and with nothing more than your key. The full guide
        is <code>docs/agents.md</code>.
      </p>

      {hosted ? (
        <p>
          This connection is the hosted service. The MCP endpoint (<code>/mcp</code>) is Headwater&apos;s: the
          hosted service has none. An agent can still use this connection through <code>headwater mcp</code>,
          which runs Headwater&apos;s MCP server on the agent&apos;s machine and calls the hosted API.
        </p>
      ) : mcpUrl ? (
        <dl className="meta agent-url">
          <dt>MCP URL</dt>
          <dd>
            <code>{mcpUrl}</code> <CopyButton text={mcpUrl} label="Copy MCP URL" />
          </dd>
        </dl>
      ) : (
        <p className="muted">The Local server has not started yet: its MCP URL shows here once it runs.</p>
      )}

      <div className="agent-configs">
        {!hosted && mcpUrl && (
          <ConfigBlock
            id="agent-http"
            title="Over HTTP"
            what="HTTP configuration"
            text={httpConfig(mcpUrl)}
            intro={
              <>
                For clients that take a URL. The agent reaches this server directly; the key goes in the{" "}
                <code>Authorization</code> header.
              </>
            }
          />
        )}

        {stdio && (
          <ConfigBlock
            id="agent-stdio"
            title="Over stdio"
            what="stdio configuration"
            text={stdio}
            intro={
              <>
                The client starts <code>headwater mcp</code> (the CLI) itself.{" "}
                {stdioFinds
                  ? "With no variables it finds this Local server and its key by itself."
                  : "The variables name this connection and its key."}{" "}
                <code>npx headwater</code> finds the CLI of a Headwater clone: run <code>npm link</code> in
                the clone once so it is found from any folder.
              </>
            }
          />
        )}
      </div>

      <KeyNote profile={profile} hosted={hosted} admin={admin} stdioFinds={stdioFinds} />

      {!hosted && <AgentTest />}
    </section>
  );
}

function ConfigBlock(props: { id: string; title: string; what: string; text: string; intro: ReactNode }) {
  return (
    <div className="agent-config">
      <div className="agent-config-head">
        <h3 id={`${props.id}-title`}>{props.title}</h3>
        <CopyButton text={props.text} label={`Copy ${props.what}`} />
      </div>
      <p className="muted small">{props.intro}</p>
      {/* Long lines wrap (agent-config in account.css) rather than scroll: nothing to reach by keyboard. */}
      <pre className="code-block">{props.text}</pre>
    </div>
  );
}

/** Where the key goes, for this kind of connection (the page itself never has a key). */
function KeyNote(props: {
  profile: Profile;
  hosted: boolean;
  admin: boolean | undefined;
  stdioFinds: boolean;
}) {
  const { profile: p, admin } = props;
  const placeholder = <code>{API_KEY_PLACEHOLDER}</code>;
  const ownUser =
    admin === true ? (
      <>
        an administrator can give the agent a user of its own under <strong>Users</strong> below (its key is
        shown once, when it is created)
      </>
    ) : (
      <>an administrator of this server can give the agent a user and key of its own</>
    );
  if (p.kind === "local") {
    return (
      <p className="agent-key-note">
        <strong>The key.</strong> The Local connection&apos;s key is made and kept by the app and never shown
        {props.stdioFinds ? <>; over stdio none is needed</> : null}. Where {placeholder} stands, put a key
        you hold: {ownUser}.
      </p>
    );
  }
  return (
    <p className="agent-key-note">
      <strong>The key.</strong> Replace {placeholder} with this connection&apos;s API key
      {p.key.lastFour ? (
        <>
          , the one ending in <code>…{p.key.lastFour}</code>
        </>
      ) : null}
      : the dashboard stores it and never shows it again. <strong>Rotate API key</strong> (above) ends that
      key everywhere, agents included, and the dashboard keeps the new one without showing it either.
      {props.hosted ? null : <> Or {ownUser}.</>}
    </p>
  );
}

function AgentTest() {
  const test = useMutation({ mutationFn: () => call("testAgentConnection") });
  return (
    <div className="agent-test">
      <h3>Test</h3>
      <p className="muted small">
        Connects to the MCP endpoint with this connection&apos;s key, as an agent would, and lists its tools.
      </p>
      <div className="form-actions start">
        <button type="button" className="btn" onClick={() => test.mutate()} disabled={test.isPending}>
          Test connection
        </button>
        {test.isPending && <Spinner label="Testing the MCP endpoint" showLabel />}
      </div>
      <ErrorNote error={test.error} title="The agent could not connect" onDismiss={() => test.reset()} />
      {test.data && <TestResult result={test.data} />}
    </div>
  );
}

function TestResult({ result: r }: { result: AgentConnectionTest }) {
  const server = r.server ? `${r.server.name} ${r.server.version}` : "the server";
  const n = r.tools.length;
  return (
    <div className="agent-result">
      <p role="status">
        Connected to {server} at <code>{r.url}</code>
        {r.protocolVersion ? <> (MCP {r.protocolVersion})</> : null}: {n} {n === 1 ? "tool" : "tools"}.
      </p>
      {n > 0 && (
        // Names only, what each does on hover: the descriptions are written for agents, long.
        <ul className="agent-tools compact" aria-label="Tools">
          {r.tools.map((t) => (
            <li key={t.name} title={t.description ? firstSentence(t.description) : undefined}>
              <code>{t.name}</code>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
