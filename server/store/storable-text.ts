/**
 * Text as both databases can store it (decisions.md "Runs under faults"): PostgreSQL refuses a
 * NUL in a text value (and in a JSON value cast to jsonb, as the event search index does), and
 * neither database can hold a lone UTF-16 surrogate (the drivers write UTF-8: SQLite and pg each
 * turn it into U+FFFD on their own terms, or refuse it as a JSON escape). Strings that a
 * component produced (emits, channels, logs, a run's values, exit reason and response) are
 * stored with U+FFFD in place of either, the same on both databases, so that no user text can
 * make a commit fail.
 *
 * Cheap where it runs on every write: JSON text is checked with one `indexOf` (JSON.stringify
 * writes a NUL or a lone surrogate only as a `\u` escape), and only text holding a `\u` escape
 * is looked at further.
 */

const REPLACEMENT = "\uFFFD";
/** A NUL or a surrogate, as raw characters (code units: the expressions have no `u` flag). */
const RAW_SUSPECT = /[\0\uD800-\uDFFF]/;
/** A NUL, a high surrogate not followed by a low one, or a low one not after a high one. */
const RAW_BAD = /\0|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** `text` with each NUL and lone surrogate replaced by U+FFFD (a well-formed pair stays). */
export function storableText(text: string): string {
  if (!RAW_SUSPECT.test(text)) return text;
  return text.replace(RAW_BAD, REPLACEMENT);
}

/**
 * A `\u` escape in JSON text: `\u0000`, or one of a surrogate (a high one with the low one that
 * completes it, when present). The backslashes before it are captured: only an odd run of them
 * makes an escape (`\\u0000` is a backslash followed by the text "u0000").
 */
const JSON_BAD_ESCAPE = /(\\+)u(0000|d[89ab][0-9a-f]{2}(?:\\ud[c-f][0-9a-f]{2})?|d[c-f][0-9a-f]{2})/gi;

/**
 * JSON text (as JSON.stringify writes it) with each escaped NUL and lone surrogate, in strings
 * and keys, replaced by the escape of U+FFFD. Anything else is left as it is.
 */
export function storableJson(json: string): string {
  if (json.indexOf("\\u") < 0) return json;
  return json.replace(JSON_BAD_ESCAPE, (match: string, slashes: string, code: string) => {
    if (slashes.length % 2 === 0) return match; // an escaped backslash, then plain text
    // A high surrogate followed by its low one is a well-formed pair.
    if (code.length > 4) return match;
    return `${slashes}ufffd`;
  });
}

/** An escaped NUL (`\u0000` after an odd run of backslashes) in JSON text. */
const ESCAPED_NUL = /(?<!\\)(?:\\\\)*\\u0000/;

/** Whether JSON text holds a NUL in a string or key (a raw NUL is not JSON at all). */
export function hasEscapedNul(json: string): boolean {
  return json.includes("\\u0000") && ESCAPED_NUL.test(json);
}
