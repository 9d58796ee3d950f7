/**
 * The web host's variables (decisions.md, "Running the dashboard"), parsed once.
 */
import { z } from "zod";

const Env = z
  .object({
    HEADWATER_WEB_PORT: z
      .string()
      .regex(/^\d+$/, "must be a port number")
      .transform(Number)
      .pipe(z.number().int().min(0).max(65535))
      .default(7434),
    HEADWATER_API_URL: z.url({ protocol: /^https?$/, message: "must be an http(s) URL ending in /v1" }).optional(),
    HEADWATER_API_KEY: z.string().min(1).optional(),
  })
  .refine((e) => (e.HEADWATER_API_URL === undefined) === (e.HEADWATER_API_KEY === undefined), {
    message: "set both HEADWATER_API_URL and HEADWATER_API_KEY, or neither",
    path: ["HEADWATER_API_URL"],
  });

export interface WebEnv {
  port: number;
  remote: { baseUrl: string; apiKey: string } | undefined;
}

export function parseWebEnv(env: NodeJS.ProcessEnv): WebEnv {
  const parsed = Env.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join(".")}: ${i.message}`);
    throw new Error(`invalid configuration:\n${lines.join("\n")}`);
  }
  const e = parsed.data;
  return {
    port: e.HEADWATER_WEB_PORT,
    remote: e.HEADWATER_API_URL && e.HEADWATER_API_KEY ? { baseUrl: e.HEADWATER_API_URL, apiKey: e.HEADWATER_API_KEY } : undefined,
  };
}
