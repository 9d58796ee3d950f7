/** Small schemas the route plugins share. Resource schemas live in shared/resources. */
import { z } from "zod";

/** `{data: T}`: the envelope of every single-resource answer. */
export const Data = <T extends z.core.$ZodType>(item: T) => z.object({ data: item });

/** `:id` path parameter (any non-empty string: unknown ids are a 404, not a 400). */
export const IdParams = z.object({ id: z.string().min(1).max(200) });
