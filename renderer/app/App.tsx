/**
 * The shell: sidebar navigation and connection switcher, and the routed view. Until the current
 * connection is usable (no profile yet, the local server starting or failed) the views are
 * replaced by what the user needs to know, and Account stays reachable to fix it.
 */
import type { QueryClient } from "@tanstack/react-query";
import type { Profile } from "../../shared/bridge.js";
import { useHostInfo } from "../state/queries.js";
import { ErrorNote } from "../ui/ErrorNote.js";
import { Loading } from "../ui/Spinner.js";
import { Toasts } from "../ui/Toasts.js";
import { AccountView } from "../views/account/AccountView.js";
import { AccountsView } from "../views/accounts/AccountsView.js";
import { ActionsView } from "../views/actions/ActionsView.js";
import { ComponentsView } from "../views/components/ComponentsView.js";
import { EnvView } from "../views/env/EnvView.js";
import { DataStoresView } from "../views/data-stores/DataStoresView.js";
import { FlowView } from "../views/flow/FlowView.js";
import { SourcesView } from "../views/sources/SourcesView.js";
import { SubscriptionsView } from "../views/subscriptions/SubscriptionsView.js";
import { WorkflowsView } from "../views/workflows/WorkflowsView.js";
import { Providers } from "./Providers.js";
import { routeHref, useRoute, type Route } from "./router.js";
import { Sidebar } from "./Sidebar.js";
import { useStoredTheme } from "./theme.js";
import { useProfilesSync } from "./useProfilesSync.js";

export function App(props: { client?: QueryClient }) {
  return (
    <Providers client={props.client}>
      <Shell />
    </Providers>
  );
}

function Shell() {
  const route = useRoute();
  const { profiles, current } = useProfilesSync();
  const host = useHostInfo();
  useStoredTheme();
  return (
    <div className="app">
      <Sidebar view={route.view} profiles={profiles.data ?? []} current={current} mode={host.data?.mode} />
      <main className="content">
        {profiles.isPending ? (
          <Loading label="Connecting" />
        ) : profiles.error ? (
          <div className="page">
            <ErrorNote
              error={profiles.error}
              title="Could not reach the dashboard host"
              onRetry={() => void profiles.refetch()}
            />
          </div>
        ) : (
          <Routed route={route} current={current} />
        )}
      </main>
      <Toasts />
    </div>
  );
}

function Routed({ route, current }: { route: Route; current: Profile | null }) {
  if (route.view === "account") return <AccountView />;
  if (!current) {
    return (
      <div className="page">
        <div className="notice">
          <h1>No connection yet</h1>
          <p>Choose the local server or add a remote one (base URL and API key) to start.</p>
          <a className="btn primary" href={routeHref("account")}>
            Set up a connection
          </a>
        </div>
      </div>
    );
  }
  if (current.status === "starting") {
    return <Loading label={`Starting ${current.name}… the first start can take a few seconds`} />;
  }
  if (current.status === "failed") {
    return (
      <div className="page">
        <div role="alert" className="error-note">
          <div className="error-text">
            <strong>{current.name} is not available</strong>
            <span>{current.statusMessage ?? "The connection failed."}</span>
          </div>
          <div className="error-actions">
            <a className="btn small" href={routeHref("account")}>
              Connections
            </a>
          </div>
        </div>
      </div>
    );
  }
  switch (route.view) {
    case "components":
      return <ComponentsView selectedId={route.id} />;
    case "subscriptions":
      return <SubscriptionsView />;
    case "flow":
      return <FlowView />;
    case "workflows":
      return <WorkflowsView selectedId={route.id} />;
    case "actions":
      return <ActionsView />;
    case "accounts":
      return <AccountsView />;
    case "env":
      return <EnvView />;
    case "stores":
      return <DataStoresView />;
    default:
      return <SourcesView selectedId={route.id} />;
  }
}
