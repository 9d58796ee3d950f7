import { useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import type { Profile } from "../../shared/bridge.js";
import { call } from "../state/bridge.js";
import { keys } from "../state/queries.js";
import { ErrorNote } from "../ui/ErrorNote.js";
import { routeHref, type ViewName } from "./router.js";
import { ThemeSwitch } from "./ThemeSwitch.js";

const NAV: { view: ViewName; label: string; icon: string }[] = [
  { view: "sources", label: "Sources", icon: "◉" },
  { view: "components", label: "Components", icon: "▣" },
  { view: "subscriptions", label: "Subscriptions", icon: "⇄" },
  { view: "flow", label: "Flow", icon: "⤳" },
  { view: "workflows", label: "Workflows", icon: "⚙" },
  { view: "actions", label: "Actions", icon: "▶" },
  // Apps' credentials (not the user's own account, below): "Connected" keeps the two apart.
  { view: "accounts", label: "Connected accounts", icon: "⚷" },
  // What code reads as process.env.NAME.
  { view: "env", label: "Environment", icon: "$" },
  // Keys and values code keeps across runs.
  { view: "stores", label: "Data stores", icon: "▤" },
  { view: "account", label: "Account", icon: "◎" },
];

/**
 * The navigation. Below 1100 px (shell.css) it narrows to its icons: each link keeps its name
 * (for screen readers, and as a tooltip), and the connection shows as its status dot, a link
 * to Account where connections are switched.
 */
export function Sidebar(props: {
  view: ViewName;
  profiles: Profile[];
  current: Profile | null;
  mode?: string;
}) {
  const { view, profiles, current, mode } = props;
  return (
    <nav className="sidebar" aria-label="Main">
      <div className="brand">
        <span className="brand-mark" aria-hidden="true">
          ≋
        </span>
        <span className="brand-name">Headwater</span>
      </div>
      <ul className="nav">
        {NAV.map((n) => (
          <li key={n.view}>
            <a
              href={routeHref(n.view)}
              aria-current={view === n.view ? "page" : undefined}
              className="nav-link"
              title={n.label}
            >
              <span className="nav-icon" aria-hidden="true">
                {n.icon}
              </span>
              <span className="nav-label">{n.label}</span>
            </a>
          </li>
        ))}
      </ul>
      <ProfileSwitcher profiles={profiles} current={current} />
      <ConnectionDot current={current} />
      <ThemeSwitch />
      {mode && <div className="host-mode muted">{mode === "web" ? "Web mode" : "Desktop"}</div>}
    </nav>
  );
}

/** The narrow sidebar's stand-in for the switcher: the connection's state, a link to Account. */
function ConnectionDot({ current }: { current: Profile | null }) {
  const status = current?.status ?? "none";
  const name = current ? `Connection: ${current.name}, ${status}` : "No connection";
  return (
    <a className="connection-dot" href={routeHref("account")} aria-label={name} title={name}>
      <span className={`status-dot ${status}`} data-status={status} />
    </a>
  );
}

/** One click to switch connection: a select of every profile, with the current one's state. */
function ProfileSwitcher({ profiles, current }: { profiles: Profile[]; current: Profile | null }) {
  const qc = useQueryClient();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const select = async (id: string) => {
    setBusy(true);
    setError(null);
    try {
      await call("selectProfile", id);
      qc.setQueryData<Profile[]>(keys.profiles, (list) => list?.map((p) => ({ ...p, current: p.id === id })));
      await qc.invalidateQueries({ queryKey: keys.profiles });
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  return (
    <div className="profile-switcher">
      <label htmlFor="profile-select" className="muted small-label">
        Connection
      </label>
      <div className="profile-row">
        <span
          className={`status-dot ${current?.status ?? "none"}`}
          title={current?.statusMessage ?? current?.status ?? "none"}
          data-status={current?.status ?? "none"}
        />
        <select
          id="profile-select"
          value={current?.id ?? ""}
          disabled={busy || profiles.length === 0}
          onChange={(e) => void select(e.target.value)}
        >
          {!current && <option value="">No connection</option>}
          {profiles.map((p) => (
            <option key={p.id} value={p.id} title={`${p.kind}: ${p.baseUrl}`}>
              {p.name}
            </option>
          ))}
        </select>
      </div>
      {current && (
        <div className="muted profile-url" title={current.baseUrl}>
          {current.baseUrl || "starting…"}
        </div>
      )}
      {current?.status === "refused" && (
        <div className="inline-error profile-refused" role="status" title={current.statusMessage}>
          Key refused. <a href={routeHref("account")}>Replace it</a>
        </div>
      )}
      <ErrorNote error={error} title="Could not switch connection" onDismiss={() => setError(null)} />
    </div>
  );
}
