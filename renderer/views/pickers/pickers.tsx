/**
 * The fields that name an emitter, a listener or a channel, wherever one is asked for (new
 * subscription, auto-subscription, a replay's listener, a workflow's triggers): comboboxes that
 * search the account's sources and workflows by name, and still take a pasted id or, for
 * emitters, the globs `dc_*` / `p_*`.
 */
import { useMemo, useState } from "react";
import { useAllSources, useAllWorkflows, useSubscriptions } from "../../state/queries.js";
import { Combobox, type ComboboxOption } from "../../ui/Combobox.js";

const ID = /^(dc|p)_[A-Za-z0-9]+$/;
const GLOB = /^(dc|p)_\*$/;
const CHANNEL = /^\$?[A-Za-z0-9_.:-]+$/;

export const GLOB_OPTIONS: ComboboxOption[] = [
  { value: "dc_*", label: "All sources", kind: "glob" },
  { value: "p_*", label: "All workflows", kind: "glob" },
];

/** The account's sources and workflows as options, newest first within each kind. */
export function useEmitterOptions(): { options: ComboboxOption[]; loading: boolean } {
  const sources = useAllSources(true);
  const workflows = useAllWorkflows(true);
  const options = useMemo(
    () => [
      ...(sources.data ?? []).map((s) => ({ value: s.id, label: s.name, kind: "source" })),
      ...(workflows.data ?? []).map((w) => ({ value: w.id, label: w.name, kind: "workflow" })),
    ],
    [sources.data, workflows.data],
  );
  return { options, loading: sources.isLoading || workflows.isLoading };
}

interface PickerProps {
  id: string;
  value: string;
  onChange: (value: string) => void;
  error?: string;
  hint?: string;
  /** Field label; default "Emitter" / "Listener". */
  label?: string;
}

/** A source or workflow that emits: also the globs `dc_*` (every source) and `p_*` (every workflow). */
export function EmitterPicker(props: PickerProps & { globs?: boolean }) {
  const { options, loading } = useEmitterOptions();
  const globs = props.globs ?? true;
  return (
    <Combobox
      id={props.id}
      label={props.label ?? "Emitter"}
      options={globs ? [...GLOB_OPTIONS, ...options] : options}
      value={props.value}
      onChange={props.onChange}
      acceptText={(t) => ID.test(t) || (globs && GLOB.test(t))}
      placeholder="Search sources and workflows"
      loading={loading}
      hint={
        props.hint ??
        (globs ? "A name, a pasted id, or dc_* / p_* for all sources / workflows" : "A name or a pasted id")
      }
      error={props.error}
    />
  );
}

/** A source or workflow that listens; `only` narrows the choice (a replay: the current listeners). */
export function ListenerPicker(props: PickerProps & { only?: readonly string[] }) {
  const all = useEmitterOptions();
  const options = useMemo(
    () => (props.only ? all.options.filter((o) => props.only!.includes(o.value)) : all.options),
    [all.options, props.only],
  );
  return (
    <Combobox
      id={props.id}
      label={props.label ?? "Listener"}
      options={options}
      value={props.value}
      onChange={props.onChange}
      acceptText={(t) => ID.test(t) && (!props.only || props.only.includes(t))}
      placeholder="Search sources and workflows"
      loading={all.loading}
      hint={props.hint ?? "A name or a pasted id"}
      error={props.error}
    />
  );
}

/**
 * A channel of `emitterId`: default, `$errors`, `$logs`, and the named channels it is known to
 * use (those its subscriptions name); any other valid channel name can be typed. `""` is the
 * default channel; `defaultValue` lets a form that says "default" instead (auto-subscriptions).
 */
export function ChannelPicker(props: PickerProps & { emitterId: string; defaultValue?: string }) {
  const subs = useSubscriptions();
  const def = props.defaultValue ?? "";
  const options = useMemo(() => {
    const named = new Set<string>();
    for (const s of subs.data ?? []) {
      if (
        s.event_name &&
        !s.event_name.startsWith("$") &&
        (!props.emitterId || s.emitter_id === props.emitterId)
      ) {
        named.add(s.event_name);
      }
    }
    return [
      { value: "default", label: "default", kind: "emits" },
      { value: "$errors", label: "$errors", kind: "errors" },
      { value: "$logs", label: "$logs", kind: "logs" },
      ...[...named].sort().map((n) => ({ value: n, label: n, kind: "named" })),
    ];
  }, [subs.data, props.emitterId]);
  // What the field holds: "" while cleared (the form still means the default channel).
  const toChannel = (v: string) => (v === "" || v === "default" ? def : v);
  const [shown, setShown] = useState(props.value === def ? "default" : props.value);
  if (toChannel(shown) !== props.value) setShown(props.value === def ? "default" : props.value);
  return (
    <Combobox
      id={props.id}
      label={props.label ?? "Channel"}
      options={options}
      value={shown}
      onChange={(v) => {
        setShown(v);
        props.onChange(toChannel(v));
      }}
      acceptText={(t) => CHANNEL.test(t)}
      placeholder="default"
      hint={props.hint ?? "default, $errors, $logs, or a named channel"}
      error={props.error}
    />
  );
}
