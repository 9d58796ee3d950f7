/**
 * zod for what the CLI and the dashboard load (shared/resources, the client, the bridge, the CLI's
 * profiles): `zod/mini`, the same core as `import { z } from "zod"` with a functional API
 * (`z.optional(s)`, `s.check(z.minLength(1))`, `z.pipe(a, z.transform(f))`). It loads in a few
 * ms where classic zod takes ~30, and its schemas are cheaper to build.
 *
 * Import it as `import * as z from ".../shared/zod.js"`, not from "zod/mini": classic zod
 * installs English messages when its first schema is built, mini installs none (issues would
 * read "Invalid input"), so this module does, once, the same way (a locale set before, by
 * classic zod or a `z.config()`, is kept). Only ever access members (`z.object`), never pass `z`
 * itself around: then esbuild bundles only the parts of zod in use.
 *
 * Classic and mini schemas mix: the server's classic schemas wrap these, and code that takes
 * either types them as `z.core.$ZodType` / `z.core.$ZodError` (core types, not classic's).
 */
import { config, locales } from "zod/mini";

if (!config().localeError) config(locales.en());

export * from "zod/mini";
