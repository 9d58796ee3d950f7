/**
 * The prop types a code step may declare, by type: adding one (a `data_store`, say) is one
 * module here plus its binding in sandbox/step-props.cjs. A declared type that is not listed is
 * refused when the step is saved, naming the types there are.
 */
import type { PropDescriptor } from "../../../shared/resources/index.js";
import { appProp } from "./app.js";
import { dataStoreProp } from "./data-store.js";
import { booleanProp, integerProp, stringProp } from "./plain.js";
import type { PropCheckContext, StepPropType } from "./types.js";

export const STEP_PROP_TYPES: Readonly<Record<string, StepPropType>> = {
  app: appProp,
  string: stringProp,
  integer: integerProp,
  boolean: booleanProp,
  data_store: dataStoreProp,
};

/** What is wrong with one configured prop of a step. */
export interface PropIssue {
  /** The prop's name; absent when the issue is the step's (its props cannot be read). */
  prop?: string;
  message: string;
}

const required = (p: PropDescriptor) => p.optional !== true && p.default === undefined;

/**
 * The issues of `configured` against the props the step's code declares: each unknown name,
 * each declared type with no module, each required prop without a value, each value its type
 * refuses. None: the values are what the step's run gets.
 */
export async function propIssues(
  declared: PropDescriptor[],
  configured: Record<string, unknown>,
  ctx: PropCheckContext,
): Promise<PropIssue[]> {
  const issues: PropIssue[] = [];
  const names = declared.map((p) => p.name);
  for (const name of Object.keys(configured)) {
    if (names.includes(name)) continue;
    const known = names.length > 0 ? `its props: ${names.join(", ")}` : "it declares none";
    issues.push({ prop: name, message: `not a prop of this step's code (${known})` });
  }
  for (const prop of declared) {
    const type = STEP_PROP_TYPES[prop.type];
    if (!type) {
      const types = Object.keys(STEP_PROP_TYPES).join(", ");
      issues.push({
        prop: prop.name,
        message: `props of type "${prop.type}" are not supported in a code step (the types: ${types})`,
      });
      continue;
    }
    const value = configured[prop.name];
    if (value === undefined || value === null) {
      if (required(prop)) issues.push({ prop: prop.name, message: `required: ${type.needs}` });
      continue;
    }
    const wrong = await type.check(prop, value, ctx);
    if (wrong !== undefined) issues.push({ prop: prop.name, message: wrong });
  }
  return issues;
}
