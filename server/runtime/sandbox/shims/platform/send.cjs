// @ts-check
"use strict";
/**
 * The legacy `$send` destinations' config checks (`SendConfigHTTP`, ... and `sendTypeMap`),
 * `$end`, and their constants. The vendor builds the checks with io-ts; components use them
 * through the io-ts codec surface (`is`, `decode` giving `{_tag: "Right", right}` or
 * `{_tag: "Left", left: [errors]}`, `validate`, `encode`, `name`), which is what this offers.
 * `$send` and `$event` are globals of the hosted runtime and are left undefined here, as in
 * the package (workflow steps get `$send` from steps.cjs).
 */

/**
 * @typedef {{ value: unknown, context: Array<{ key: string }>, message?: string }} Failure
 * @typedef {{ _tag: string, name: string, is(u: unknown): boolean,
 *   validate(u: unknown, path?: string[]): Failure[], decode(u: unknown): any, encode(a: unknown): unknown }} Codec
 */

/** @param {string} _tag @param {string} name @param {(u: unknown, path: string[]) => Failure[]} check @param {Record<string, unknown>} [extra] @returns {Codec} */
function codec(_tag, name, check, extra = {}) {
  return {
    _tag,
    name,
    ...extra,
    is: (u) => check(u, []).length === 0,
    validate: (u, p = []) => check(u, p),
    decode(u) {
      const left = check(u, []);
      return left.length ? { _tag: "Left", left } : { _tag: "Right", right: u };
    },
    encode: (a) => a,
  };
}

/** @param {unknown} value @param {string[]} p @param {string} expected @returns {Failure[]} */
const fail = (value, p, expected) => [
  {
    value,
    context: p.map((key) => ({ key })),
    message: `Invalid value ${JSON.stringify(value)} supplied to ${p.join("/") || "config"}: expected ${expected}`,
  },
];

const string = codec("StringType", "string", (u, p) => (typeof u === "string" ? [] : fail(u, p, "string")));
const object = codec("AnyDictionaryType", "object", (u, p) =>
  typeof u === "object" && u !== null ? [] : fail(u, p, "object"),
);
/** @param {Codec[]} types */
const union = (types) =>
  codec(
    "UnionType",
    types.map((t) => t.name).join(" | "),
    (u, p) => (types.some((t) => t.is(u)) ? [] : fail(u, p, types.map((t) => t.name).join(" | "))),
    { types },
  );
/** @param {string[]} keys */
const keyof = (keys) =>
  codec(
    "KeyofType",
    keys.join(" | "),
    (u, p) => (typeof u === "string" && keys.includes(u) ? [] : fail(u, p, keys.join(" | "))),
    { keys: Object.fromEntries(keys.map((k) => [k, null])) },
  );

/** Every listed key present and valid. @param {Record<string, Codec>} props */
const required = (props) =>
  codec(
    "ExactType",
    `{ ${Object.keys(props).join(", ")} }`,
    (u, p) => {
      if (typeof u !== "object" || u === null) return fail(u, p, "object");
      return Object.entries(props).flatMap(([k, t]) => t.validate(/** @type {any} */ (u)[k], [...p, k]));
    },
    { props },
  );
/** Listed keys valid when present. @param {Record<string, Codec>} props */
const optional = (props) =>
  codec(
    "PartialType",
    `Partial<{ ${Object.keys(props).join(", ")} }>`,
    (u, p) => {
      if (typeof u !== "object" || u === null) return fail(u, p, "object");
      return Object.entries(props).flatMap(([k, t]) =>
        /** @type {any} */ (u)[k] === undefined ? [] : t.validate(/** @type {any} */ (u)[k], [...p, k]),
      );
    },
    { props },
  );
/** @param {Codec[]} types */
const both = (types) =>
  codec(
    "IntersectionType",
    types.map((t) => t.name).join(" & "),
    (u, p) => types.flatMap((t) => t.validate(u, p)),
    { types },
  );

const stringOrObject = union([string, object]);
const HTTP_METHODS = ["GET", "HEAD", "POST", "PUT", "DELETE", "CONNECT", "OPTIONS", "TRACE", "PATCH"];

const SendConfigEmail = optional({ html: string, subject: string, text: string });
const SendConfigEmit_required = required({ raw_event: object });
const SendConfigEmit_optional = optional({ event: object });
const SendConfigEmit = both([SendConfigEmit_required, SendConfigEmit_optional]);
const SendConfigHTTP = both([
  required({ method: keyof(HTTP_METHODS), url: string }),
  optional({
    auth: required({ password: string, username: string }),
    data: stringOrObject,
    headers: object,
    params: object,
  }),
]);
const SendConfigS3 = required({ bucket: string, payload: stringOrObject, prefix: string });
const SendConfigSQL = required({ payload: stringOrObject, table: string });
const SendConfigSnowflake = required({
  account: string,
  database: string,
  host: string,
  payload: stringOrObject,
  pipe_name: string,
  private_key: string,
  schema: string,
  stage_name: string,
  user: string,
});
const SendConfigSSE = required({ channel: string, payload: stringOrObject });

const sendTypeMap = {
  email: SendConfigEmail,
  emit: SendConfigEmit,
  http: SendConfigHTTP,
  s3: SendConfigS3,
  sql: SendConfigSQL,
  snowflake: SendConfigSnowflake,
  sse: SendConfigSSE,
};

/** Per destination, a function that throws on an invalid config (the first problem found). */
const $sendConfigRuntimeTypeChecker = Object.fromEntries(
  Object.entries(sendTypeMap).map(([name, type]) => [
    name,
    /** @param {unknown} config */
    (config) => {
      const result = type.decode(config);
      if (result._tag === "Left") throw new Error(result.left[0].message || `invalid $send.${name} config`);
    },
  ]),
);

/** The property an `$end` error carries, which tells the runtime the workflow ended on purpose. */
const END_NEEDLE = "__pd_end";

/** Ends the workflow run here, with an optional reason. @param {string} [message] */
function $end(message) {
  const err = new Error(message === undefined ? "$end" : String(message));
  /** @type {any} */ (err)[END_NEEDLE] = { message, ts: new Date().toISOString() };
  throw err;
}

module.exports = {
  SendConfigEmail,
  SendConfigEmit_required,
  SendConfigEmit_optional,
  SendConfigEmit,
  HTTP_METHODS,
  SendConfigHTTP,
  SendConfigS3,
  SendConfigSQL,
  SendConfigSnowflake,
  SendConfigSSE,
  sendTypeMap,
  $event: undefined,
  END_NEEDLE,
  $send: undefined,
  $sendConfigRuntimeTypeChecker,
  $end,
};
