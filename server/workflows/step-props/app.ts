/**
 * An `app` prop of a code step: its value is `{authProvisionId}`, a connected account of the
 * step's owner for that app (accounts/). Another user's account is answered exactly as a missing
 * one, so that ids of others cannot be probed. The credentials themselves are opened only when
 * the step runs (workflow-steps.ts), never here.
 */
import { accountIdOf } from "../../../shared/resources/index.js";
import { kindOf } from "./plain.js";
import type { StepPropType } from "./types.js";

export const appProp: StepPropType = {
  needs: "a connected account: {authProvisionId}",
  check: async (prop, value, ctx) => {
    const id = accountIdOf(value);
    if (id === undefined || Object.keys(value as object).length !== 1)
      return `must be a connected account, {"authProvisionId": "apn_..."}, not ${kindOf(value)}`;
    const [account] = await ctx.accounts([id]);
    if (!account) return `account ${id} not found`;
    if (prop.app !== undefined && account.app !== prop.app)
      return `account ${id} is a ${account.app} account; this prop takes a ${prop.app} account`;
    return undefined;
  },
};
