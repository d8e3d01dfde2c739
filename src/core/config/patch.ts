/**
 * `PATCH /v1/config` as pure functions (docs/api.md#configuration): the schema of a patch,
 * derived from the document's own schema so the two cannot drift, and applying
 * one (RFC 7396 JSON Merge Patch) to the stored document as `GET` shows it.
 * Where a secret is `"***"` after the merge, the stored one is kept; that
 * decision is made when the document is sealed (`sealed-config.ts`).
 */
import { apply } from "tiny-merge-patch";
import { z } from "zod";
import { configSchema, type TenantConfig } from "./schema";

export type ConfigPatch = Record<string, unknown>;

/** The media types a patch may come as: RFC 7396 names the first; bots and curl users send the second. */
export const PATCH_MEDIA_TYPES = ["application/merge-patch+json", "application/json"];

/** Defaults, optionality and null are the merge's business: a patch names values, or null to remove one. */
function bare(schema: z.ZodType): z.ZodType {
  let s = schema;
  while (
    s instanceof z.ZodDefault ||
    s instanceof z.ZodPrefault ||
    s instanceof z.ZodOptional ||
    s instanceof z.ZodNullable
  ) {
    s = s.unwrap() as z.ZodType;
  }
  return s;
}

/**
 * The schema of a merge patch of `schema`: objects keep their keys (still strict, so a typo is a 400
 * even when its value is null), each optional and nullable; records the same per entry; anything
 * else (arrays, strings, unions) is replaced whole, so it is checked as it is.
 */
export function mergePatchOf(schema: z.ZodType): z.ZodType {
  const s = bare(schema);
  const description = schema.description ?? s.description;
  let patch: z.ZodType = s;
  if (s instanceof z.ZodObject) {
    const shape = s.shape as Record<string, z.ZodType>;
    patch = z.strictObject(
      Object.fromEntries(Object.entries(shape).map(([k, v]) => [k, mergePatchOf(v).nullable().optional()])),
    );
  } else if (s instanceof z.ZodRecord) {
    patch = z.record(s.keyType as z.ZodString, mergePatchOf(s.valueType as z.ZodType).nullable());
  }
  return description ? patch.describe(description) : patch;
}

export const configPatchSchema = mergePatchOf(configSchema).describe(
  "A JSON Merge Patch (RFC 7396) of the configuration: named keys change, null removes a key (it takes its default), arrays replace whole.",
);

/** A key that would set an object's prototype while merging instead of naming a field. */
export function prototypeKeyPath(value: unknown, path: string[] = []): string | undefined {
  if (!value || typeof value !== "object") return undefined;
  for (const [k, v] of Object.entries(value)) {
    if (k === "__proto__") return [...path, k].join(".");
    const found = prototypeKeyPath(v, [...path, k]);
    if (found) return found;
  }
  return undefined;
}

type Entry = Record<string, unknown>;
const isEntry = (v: unknown): v is Entry => !!v && typeof v === "object" && !Array.isArray(v);

/**
 * Inside an array the patch replaces (`tools`, `mcp_servers`), an entry is matched to the stored one
 * of the same `name`, and a secret it leaves out is kept, as one left out of an object is: a tool's
 * omitted `secret`, a server's omitted `headers` (an entry that lists `headers` has exactly those).
 */
function keepOmittedSecrets(entries: unknown, stored: Map<string, Entry>, field: "secret" | "headers"): unknown {
  if (!Array.isArray(entries)) return entries;
  return entries.map((entry) => {
    if (!isEntry(entry) || field in entry || typeof entry.name !== "string") return entry;
    const kept = stored.get(entry.name)?.[field];
    if (kept === undefined || (isEntry(kept) && Object.keys(kept).length === 0)) return entry;
    return { ...entry, [field]: kept };
  });
}

/**
 * The document `patch` makes of `shown` (the stored document, every secret `"***"`), still to be
 * validated like a `PUT`. Secrets the patch does not touch stay `"***"`, so they are kept.
 */
export function applyConfigPatch(shown: TenantConfig, patch: ConfigPatch): unknown {
  const merged = apply(shown as unknown, patch) as Entry;
  if (Array.isArray(patch.tools)) {
    merged.tools = keepOmittedSecrets(merged.tools, new Map(shown.tools.map((t) => [t.name, t as Entry])), "secret");
  }
  if (Array.isArray(patch.mcp_servers)) {
    merged.mcp_servers = keepOmittedSecrets(
      merged.mcp_servers,
      new Map(shown.mcp_servers.map((s) => [s.name, s as Entry])),
      "headers",
    );
  }
  return merged;
}
