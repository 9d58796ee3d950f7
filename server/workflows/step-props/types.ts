/**
 * One kind of prop a code step may declare (decisions.md "Code steps with props"): how a value
 * given in the step's `configured_props` is checked when the step is saved. Each type is its own
 * module (app.ts, plain.ts), listed in registry.ts; its binding in the sandbox, which turns the
 * value into what `this.<prop>` is, lives beside the sandbox's code (sandbox/step-props.cjs).
 */
import type { PropDescriptor } from "../../../shared/resources/index.js";
import type { Db } from "../../store/db.js";

/** What a check may read: only the owner's things (another user's look missing). */
export interface PropCheckContext {
  ownerId: string;
  /** The owner's accounts among `ids` (another user's are not found, exactly as a missing one). */
  accounts(ids: string[]): Promise<Array<{ id: string; app: string }>>;
  /** The owner's data stores among `ids` (another user's are not found, as a missing one). */
  dataStores(ids: string[]): Promise<string[]>;
  /** The transaction of the write, when the check runs inside it. */
  db?: Db | undefined;
}

export interface StepPropType {
  /** The value is given (neither undefined nor null): what is wrong with it, or undefined. */
  check(
    prop: PropDescriptor,
    value: unknown,
    ctx: PropCheckContext,
  ): Promise<string | undefined> | string | undefined;
  /** What a missing value of a required prop needs, said to the user. */
  needs: string;
}
