/**
 * The wire shapes of `PUT` / `PATCH /v1/config` beyond the document itself
 * (docs/api.md#configuration), for `/openapi.json`: what a write answers, and the patch.
 */
import { z } from "zod";
import { configSchema } from "../config/schema";

export { configPatchSchema as configPatch, PATCH_MEDIA_TYPES } from "../config/patch";

export const configAnswer = configSchema.extend({
  generated_secrets: z
    .record(z.string(), z.string())
    .describe(
      "Signing secrets fanout generated in this write, keyed by name (`tools.<name>.secret`, `webhook.secret`): shown only here, so store them.",
    ),
});
