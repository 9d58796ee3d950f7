/**
 * System / Light / Dark, at the foot of the sidebar: three radio buttons drawn as a segmented
 * control (icons only when the sidebar is narrow; each keeps its name and a tooltip).
 */
import type { ThemePreference } from "../../shared/bridge.js";
import { ErrorNote } from "../ui/ErrorNote.js";
import { useTheme } from "./theme.js";

const CHOICES: { value: ThemePreference; label: string; icon: string }[] = [
  { value: "system", label: "System", icon: "◐" },
  { value: "light", label: "Light", icon: "☀" },
  { value: "dark", label: "Dark", icon: "☾" },
];

export function ThemeSwitch() {
  const preference = useTheme((s) => s.preference);
  const choose = useTheme((s) => s.choose);
  const error = useTheme((s) => s.error);
  return (
    <fieldset className="theme-switch">
      <legend className="muted small-label">Theme</legend>
      <div className="theme-choices">
        {CHOICES.map((c) => (
          <label key={c.value} className="theme-choice" title={`${c.label} theme`}>
            <input
              type="radio"
              name="theme"
              value={c.value}
              checked={preference === c.value}
              onChange={() => void choose(c.value)}
            />
            <span className="theme-icon" aria-hidden="true">
              {c.icon}
            </span>
            <span className="theme-label">{c.label}</span>
          </label>
        ))}
      </div>
      <ErrorNote
        error={error}
        title="Could not keep the theme"
        onDismiss={() => useTheme.setState({ error: null })}
      />
    </fieldset>
  );
}
