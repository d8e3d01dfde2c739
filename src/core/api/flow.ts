/**
 * Wire schema of `GET /v1/flow` (docs/api.md#flow-control), for `/openapi.json`: each flow rule's
 * running and queued calls, its rate's headroom, and its busiest keys.
 */
import { z } from "zod";

const counts = { running: z.number().int(), queued: z.number().int() };

export const flowAnswer = z.object({
  rules: z.array(
    z.object({
      name: z.string(),
      ...counts,
      rate: z
        .object({
          limit: z.number().int(),
          period_seconds: z.number().int(),
          available: z
            .number()
            .int()
            .describe("Starts the rule allows at once now (under a key, the least among its busy keys)."),
        })
        .optional(),
      keys: z
        .array(z.object({ key: z.string(), ...counts }))
        .describe("The 20 busiest keys; a key with nothing running or queued is not listed."),
    }),
  ),
});
export type FlowAnswer = z.infer<typeof flowAnswer>;
