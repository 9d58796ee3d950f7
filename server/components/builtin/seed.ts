/**
 * Seeds the built-in components into the registry at start: saved (once per version) and
 * published under the system user `headwater`, which holds a random key nobody knows, so it
 * can never sign in. `POST /sources/` with `key` finds them in the registry.
 */
import crypto from "node:crypto";
import { newId } from "../../../shared/ids.js";
import { SYSTEM_USERNAME, type UsersRepo } from "../../store/repos/users.js";
import { hashApiKey } from "../../users/keys.js";
import type { ComponentDescriber } from "../../services.js";
import type { ComponentService } from "../service.js";
import { builtinComponentCodes } from "./index.js";

export { SYSTEM_USERNAME };

/**
 * `describer`, when given, describes every built-in at once on a fresh database (each describe
 * starts a sandbox process), so that the sequential saves that follow find them known.
 */
export async function seedBuiltinComponents(users: UsersRepo, components: ComponentService, describer?: ComponentDescriber): Promise<string> {
  let system = await users.findByUsername(SYSTEM_USERNAME);
  if (!system) {
    if (describer) await Promise.all(builtinComponentCodes().map((code) => describer.describe(code)));
    system = await users.create({
      id: newId("user"),
      username: SYSTEM_USERNAME,
      email: "",
      admin: false,
      keyHash: hashApiKey(crypto.randomBytes(32).toString("hex")),
    });
  }
  await components.ensureBuiltins(system.id, builtinComponentCodes());
  return system.id;
}
