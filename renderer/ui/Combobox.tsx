/**
 * A labelled field that searches a list as you type and picks from it (the ARIA 1.2 combobox
 * pattern: an input with a listbox popup), built on Downshift's `useCombobox`, which keeps the
 * roles, `aria-activedescendant`, `aria-expanded` and the keys right (arrows move, Enter picks,
 * Escape closes then clears). What this adds: options searched by label and value, the chosen
 * option shown by its label with its value small beside it, and free text accepted as the value
 * when `acceptText` says so (a pasted id, a glob).
 */
import { useCombobox } from "downshift";
import { useEffect, useMemo, useRef, useState } from "react";

export interface ComboboxOption {
  value: string;
  label: string;
  /** A word after the label in the list (a kind: "source", "workflow"). */
  kind?: string;
}

export interface ComboboxProps {
  /** The input's id; the label, listbox, hint and error ids derive from it. */
  id: string;
  label: string;
  options: ComboboxOption[];
  /** The chosen value; `""` when none. */
  value: string;
  onChange: (value: string) => void;
  /** Free text that is a value by itself (trimmed), even when no option has it. */
  acceptText?: (text: string) => boolean;
  placeholder?: string;
  hint?: string;
  error?: string;
  /** Shown in the popup while the options load. */
  loading?: boolean;
  /** At most this many matches are listed (the rest are reached by typing more). */
  maxShown?: number;
}

/** Options whose label or value contains `query`, labels that start with it first. */
export function searchOptions(options: ComboboxOption[], query: string, max = 50): ComboboxOption[] {
  const q = query.trim().toLowerCase();
  if (!q) return options.slice(0, max);
  const starts: ComboboxOption[] = [];
  const contains: ComboboxOption[] = [];
  for (const o of options) {
    const label = o.label.toLowerCase();
    if (label.startsWith(q) || o.value.toLowerCase() === q) starts.push(o);
    else if (label.includes(q) || o.value.toLowerCase().includes(q)) contains.push(o);
  }
  return [...starts, ...contains].slice(0, max);
}

export function Combobox(props: ComboboxProps) {
  const { options, value, acceptText } = props;
  const chosen = useMemo(() => options.find((o) => o.value === value) ?? null, [options, value]);
  // What the list is filtered by. Downshift owns the input's text itself: a text controlled from
  // here is written back a render late, and fast typing loses characters.
  const [query, setQuery] = useState(chosen?.label ?? value);
  // The value this field last reported: any other value was set from outside (a form reset).
  const reported = useRef(value);
  const report = (v: string) => {
    reported.current = v;
    props.onChange(v);
  };

  const items = useMemo(() => {
    // With a choice made and its label in the input, list everything (a fresh search), not one match.
    const q = chosen && query === chosen.label ? "" : query;
    return searchOptions(options, q, props.maxShown ?? 50);
  }, [options, query, chosen, props.maxShown]);

  const cb = useCombobox<ComboboxOption>({
    id: `${props.id}-cb`,
    inputId: props.id,
    labelId: `${props.id}-label`,
    menuId: `${props.id}-listbox`,
    getItemId: (i) => `${props.id}-option-${i}`,
    items,
    itemToString: (o) => o?.label ?? "",
    initialSelectedItem: chosen,
    initialInputValue: chosen?.label ?? value,
    defaultHighlightedIndex: 0,
    stateReducer: (state, { type, changes }) => {
      const T = useCombobox.stateChangeTypes;
      // Picking needs an item: Enter or a blur over an empty list changes nothing.
      if ("selectedItem" in changes && changes.selectedItem === undefined) {
        return { ...changes, selectedItem: state.selectedItem, inputValue: state.inputValue };
      }
      // Leaving the field picks the highlighted match only when a partial name was typed: not on a
      // mere click in and out, not over an id or glob typed or pasted whole.
      if (type === T.InputBlur && changes.selectedItem !== state.selectedItem) {
        const typed = state.inputValue.trim();
        const partial = typed !== "" && !acceptText?.(typed) && typed !== (state.selectedItem?.label ?? "");
        if (!partial) return { ...changes, selectedItem: state.selectedItem, inputValue: state.inputValue };
      }
      return changes;
    },
    onInputValueChange: ({ inputValue, type }) => {
      setQuery(inputValue);
      if (type !== useCombobox.stateChangeTypes.InputChange) return;
      const typed = inputValue.trim();
      if (acceptText?.(typed)) report(typed);
      else if (reported.current !== "") report("");
    },
    onSelectedItemChange: ({ selectedItem }) => {
      if (selectedItem && selectedItem.value !== reported.current) report(selectedItem.value);
    },
  });

  // A value set from outside (a reset) shows in the input; so does the name of an id typed whole
  // once its option is known.
  const { selectItem, setInputValue, inputValue, selectedItem } = cb;
  useEffect(() => {
    if (value !== reported.current) {
      reported.current = value;
      selectItem(chosen);
      if (!chosen) setInputValue(value);
    } else if (chosen && chosen !== selectedItem && inputValue.trim() === value) {
      selectItem(chosen);
    }
  }, [value, chosen, selectItem, setInputValue, inputValue, selectedItem]);

  const describedBy = [
    props.hint && !props.error ? `${props.id}-hint` : "",
    props.error ? `${props.id}-error` : "",
  ]
    .filter(Boolean)
    .join(" ");

  return (
    <div className={props.error ? "field combobox invalid" : "field combobox"}>
      <label {...cb.getLabelProps()}>{props.label}</label>
      <div className="combobox-control">
        <input
          {...cb.getInputProps({
            placeholder: props.placeholder,
            "aria-invalid": props.error ? true : undefined,
            "aria-describedby": describedBy || undefined,
          })}
        />
        {value && chosen && chosen.label !== value && (
          <code className="combobox-value" title={value}>
            {value}
          </code>
        )}
        <ul
          {...cb.getMenuProps({ "aria-label": `${props.label} choices` })}
          className="combobox-menu"
          hidden={!cb.isOpen}
        >
          {cb.isOpen &&
            items.map((o, index) => (
              <li
                key={o.value}
                {...cb.getItemProps({ item: o, index })}
                className={
                  "combobox-option" +
                  (cb.highlightedIndex === index ? " highlighted" : "") +
                  (o.value === value ? " chosen" : "")
                }
              >
                <span className="combobox-option-label">{o.label}</span>
                {o.kind && <span className="combobox-option-kind">{o.kind}</span>}
                <code className="combobox-option-value">{o.value}</code>
              </li>
            ))}
          {cb.isOpen && items.length === 0 && (
            <li className="combobox-empty" aria-disabled="true" role="option" aria-selected="false">
              {props.loading ? "Loading…" : acceptText?.(query.trim()) ? `Use ${query.trim()}` : "No match"}
            </li>
          )}
        </ul>
      </div>
      {props.hint && !props.error && (
        <div className="hint" id={`${props.id}-hint`}>
          {props.hint}
        </div>
      )}
      {props.error && (
        <div className="field-error" role="alert" id={`${props.id}-error`}>
          {props.label}: {props.error}
        </div>
      )}
    </div>
  );
}
