/**
 * The one error shape every non-2xx answer uses (docs/api.md#validation-order-and-errors), for
 * `/openapi.json`; `src/core/http/errors.ts` builds it.
 */
import { z } from "zod";

export const errorBody = z.object({
  status: z.literal("error"),
  error: z.looseObject({ code: z.string(), message: z.string() }),
});
