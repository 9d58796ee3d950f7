/**
 * The registry as a newcomer meets it: a search box over the components the server knows (its
 * registry, and the vendor packages it fetched), by name and key, with near spellings, answered
 * as you type (`GET /components/search`). A word that names an app (`github`) makes the server
 * fetch that app's package and list its sources; a word that is no key gets "Did you mean …".
 * Enter looks the typed text up as a key, as before. Picking reads the component whole.
 */
import { useQuery } from "@tanstack/react-query";
import { useEffect, useState } from "react";
import type { ComponentMatch, ComponentSearch } from "../../../shared/resources/index.js";
import { call } from "../../state/bridge.js";
import { plainText } from "../../state/format.js";
import { ErrorNote } from "../../ui/ErrorNote.js";
import { Spinner } from "../../ui/Spinner.js";

/** How long typing pauses before the server is asked. */
const DEBOUNCE_MS = 250;

export function useComponentSearch(text: string) {
  const [q, setQ] = useState(text.trim());
  useEffect(() => {
    const t = setTimeout(() => setQ(text.trim()), DEBOUNCE_MS);
    return () => clearTimeout(t);
  }, [text]);
  const query = useQuery({
    queryKey: ["componentSearch", q],
    queryFn: () => call("searchComponents", { q, limit: 50 }),
    staleTime: 30_000,
    placeholderData: (prev) => prev,
  });
  return { ...query, settledFor: q };
}

/** What came of the app's package, in words (nothing when it was listed or lookups are off). */
function appNote(app: ComponentSearch["app"]): string | null {
  if (!app) return null;
  if (app.status === "not_found") return `npm has no package ${app.package}: no vendor sources for "${app.name}".`;
  if (app.status === "unavailable") return `Could not fetch ${app.package} now (${app.message ?? "npm did not answer"}); try again later.`;
  return null;
}

export function RegistrySearch(props: {
  disabled?: boolean;
  /** Reads the component of a key (the registry's, or the account's first when typed as a key). */
  onLookUp: (key: string, typed: boolean) => Promise<void>;
  lookupError: unknown;
}) {
  const { disabled, onLookUp, lookupError } = props;
  const [text, setText] = useState("");
  const search = useComponentSearch(text);
  const typed = text.trim();
  const sources = (search.data?.data ?? []).filter((m) => m.type === "source");
  const exact = sources.find((m) => m.key === typed);
  const suggestion = typed && !exact && sources[0] && sources[0].match !== "all" ? sources[0] : undefined;
  // "npm has no such package" matters only when nothing else answered the word.
  const app = search.data?.app;
  const note = search.settledFor === typed && (app?.status !== "not_found" || sources.length === 0) ? appNote(app) : null;
  const waiting = search.isFetching || search.settledFor !== typed;

  return (
    <div className="registry-search">
      <form
        className="inline-form"
        role="search"
        onSubmit={(e) => {
          e.preventDefault();
          if (typed) void onLookUp(exact?.key ?? typed, !exact);
        }}
      >
        <label htmlFor="registry-search">Search the registry</label>
        <input
          id="registry-search"
          type="search"
          value={text}
          onChange={(e) => setText(e.target.value)}
          placeholder="an app (http, github), a key, or words of a name"
          aria-describedby="registry-search-hint"
          disabled={disabled}
          autoComplete="off"
          spellCheck={false}
          autoFocus
        />
        <button type="submit" className="btn primary" disabled={disabled || !typed}>
          Look up
        </button>
      </form>
      <p className="hint" id="registry-search-hint">
        Matches names and keys as you type. An app&apos;s name also fetches its package from the vendor
        (<code>@pipedream/&lt;app&gt;</code>, under the vendor&apos;s licence): the first time can take a minute.
      </p>
      {suggestion && (
        <p className="did-you-mean" role="status">
          Did you mean{" "}
          <button type="button" className="link-button" disabled={disabled} onClick={() => void onLookUp(suggestion.key, false)}>
            {suggestion.key}
          </button>
          ?
        </p>
      )}
      <ErrorNote error={lookupError} />
      <ErrorNote error={search.error} title="Could not search the registry" onRetry={() => void search.refetch()} />
      {waiting && <Spinner label={typed && /^[a-z0-9_.]+$/.test(typed) ? `Searching, and looking for the ${typed} app's package` : "Searching"} showLabel />}
      {note && <p className="muted">{note}</p>}
      {!waiting && search.data && sources.length === 0 && (
        <p className="muted">{typed ? `No component matches "${typed}".` : "The registry has no components yet."}</p>
      )}
      {sources.length > 0 && (
        <ul className="pick-list registry-results" aria-label="Registry components">
          {sources.map((m) => (
            <li key={m.key}>
              <MatchButton match={m} disabled={disabled} onPick={() => void onLookUp(m.key, false)} />
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

function MatchButton({ match, disabled, onPick }: { match: ComponentMatch; disabled?: boolean; onPick: () => void }) {
  const description = match.description ? plainText(match.description) : "";
  return (
    <button type="button" className="pick" disabled={disabled} onClick={onPick}>
      <strong>{match.name}</strong>
      <span className="muted">
        {match.key}
        {match.package ? ` · ${match.package}` : ""}
      </span>
      {description && <span className="pick-description muted small">{description}</span>}
    </button>
  );
}
