/**
 * A `data_store` prop of a code step (decisions.md "Workflow triggers, environment variables and
 * data stores"): its value names one of the step owner's data stores, `"ds_..."` or
 * `{id: "ds_..."}`. Another user's store is answered exactly as a missing one. In the run the prop
 * is the store's object (sandbox/step-props.cjs, data-store.cjs).
 */
import { kindOf } from "./plain.js";
import type { StepPropType } from "./types.js";

/** The store id a value names, or undefined when it names none. */
export function dataStoreIdOf(value: unknown): string | undefined {
  const id =
    typeof value === "string"
      ? value
      : typeof value === "object" &&
          value !== null &&
          !Array.isArray(value) &&
          Object.keys(value).length === 1
        ? (value as { id?: unknown }).id
        : undefined;
  return typeof id === "string" && /^ds_[A-Za-z0-9]{1,64}$/.test(id) ? id : undefined;
}

export const dataStoreProp: StepPropType = {
  needs: 'a data store: "ds_..."',
  check: async (_prop, value, ctx) => {
    const id = dataStoreIdOf(value);
    if (id === undefined)
      return `must be a data store id, "ds_..." or {"id": "ds_..."}, not ${kindOf(value)}`;
    const [found] = await ctx.dataStores([id]);
    return found ? undefined : `data store ${id} not found`;
  },
};
