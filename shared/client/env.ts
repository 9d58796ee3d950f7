/**
 * The client's methods for environment variables (decisions.md "Workflow triggers, environment
 * variables and data stores"): a secret's value goes in and never comes back.
 */
import { EnvList, EnvVar, type SetEnvBody } from "../resources/index.js";
import { Data, enc, type Request } from "./request.js";

export function envMethods(request: Request) {
  return {
    /** Every variable, by name: `value` only for plain ones. */
    listMyEnvVars: async () => (await request("GET", "/users/me/env", EnvList)).data,
    /** Creates or replaces a variable (secret unless `secret: false`); answers it without a secret's value. */
    setEnvVar: async (name: string, body: SetEnvBody) =>
      (await request("PUT", `/users/me/env/${enc(name)}`, Data(EnvVar), { body })).data,
    /** 404 when there is no variable of that name. */
    deleteEnvVar: (name: string) => request("DELETE", `/users/me/env/${enc(name)}`, null),
  };
}
