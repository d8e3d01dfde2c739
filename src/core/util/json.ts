/**
 * JSON values as fanout hands them on: their types, the object test every
 * reader of model- or server-written JSON starts with, and a deep copy into
 * null-prototype objects. Tool calls, schemas, MCP results and routes all read
 * such JSON, so these live below all of them rather than in any one.
 */

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

export const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/** Deep copy of parsed JSON into null-prototype objects, so a `__proto__` key stays plain data. */
export function cleanCopy(value: unknown): Json {
  if (Array.isArray(value)) return value.map(cleanCopy);
  if (isObject(value)) {
    const out: JsonObject = Object.create(null);
    for (const key of Object.keys(value)) out[key] = cleanCopy(value[key]);
    return out;
  }
  return value as Json;
}
