/**
 * Reads a request body as JSON whatever its Content-Type (bots send all
 * kinds), refusing it before parsing when it is over the tenant's
 * `max_body_bytes` (413) or nests deeper than 32 levels (400).
 */
import { ApiError, badRequest } from "./errors";

export const MAX_JSON_DEPTH = 32;

async function readCapped(request: Request, maxBytes: number): Promise<string> {
  const declared = Number(request.headers.get("content-length") ?? "NaN");
  const tooLarge = () => new ApiError(413, "payload_too_large", `Request body exceeds ${maxBytes} bytes.`);
  if (declared > maxBytes) throw tooLarge();
  if (!request.body) return "";
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.length;
    if (size > maxBytes) {
      await reader.cancel();
      throw tooLarge();
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, at);
    at += chunk.length;
  }
  return new TextDecoder().decode(bytes);
}

/** The characters that open or close a level or a string, outside strings. */
const STRUCTURE = /[{}[\]"]/g;
/** The characters that end or escape inside a string. */
const IN_STRING = /["\\]/g;

/**
 * Deepest nesting of arrays/objects in JSON text, without parsing it. The regex engine skips
 * the runs between structural characters natively: a body of a few long strings (a 10 MB call
 * named with 250,000 characters) costs a fraction of a character-by-character loop.
 */
export function jsonDepth(text: string): number {
  let depth = 0;
  let max = 0;
  STRUCTURE.lastIndex = 0;
  for (let found = STRUCTURE.exec(text); found; found = STRUCTURE.exec(text)) {
    const ch = found[0];
    if (ch === "{" || ch === "[") max = Math.max(max, ++depth);
    else if (ch === "}" || ch === "]") depth--;
    else {
      IN_STRING.lastIndex = STRUCTURE.lastIndex;
      let end = IN_STRING.exec(text);
      while (end && end[0] === "\\") {
        IN_STRING.lastIndex = end.index + 2; // the escaped character, whatever it is
        end = IN_STRING.exec(text);
      }
      if (!end) break; // an unterminated string: JSON.parse refuses the text
      STRUCTURE.lastIndex = IN_STRING.lastIndex;
    }
  }
  return max;
}

/** `empty`: what an empty body means, for a route whose body is all optional; without it one is refused. */
export async function readJsonBody(request: Request, maxBytes: number, empty?: unknown): Promise<unknown> {
  const text = await readCapped(request, maxBytes);
  if (empty !== undefined && text.trim() === "") return empty;
  if (jsonDepth(text) > MAX_JSON_DEPTH) {
    throw badRequest("invalid_json", `Request body nests deeper than ${MAX_JSON_DEPTH} levels; flatten it.`);
  }
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw badRequest("invalid_json", "Request body must be a JSON object.");
  }
}

/** Thrown by `sortedKeys` when V8 would reorder an object's keys (see `canonicalJson`). */
const INDEX_KEY = Symbol("index key");

/** A copy of each plain object with its keys in sorted order, for JSON.stringify's replacer. */
function sortedKeys(_key: string, value: unknown): unknown {
  if (value === undefined) return null; // as `"k":null`, the form fingerprints were first written in
  if (!value || typeof value !== "object" || Array.isArray(value)) return value;
  const sorted: Record<string, unknown> = Object.create(null); // an own `__proto__` key stays a key
  for (const key of Object.keys(value).sort()) {
    if (/^\d+$/.test(key)) throw INDEX_KEY; // V8 lists integer keys first, whatever the order written
    sorted[key] = (value as Record<string, unknown>)[key];
  }
  return sorted;
}

/** The same text by a recursive walk: for objects with integer-like keys, which are rare. */
function canonicalWalk(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalWalk).join(",")}]`;
  if (value && typeof value === "object") {
    const obj = value as Record<string, unknown>;
    return `{${Object.keys(obj)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalWalk(obj[k])}`)
      .join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

/**
 * Canonical JSON (sorted keys), the basis of idempotency fingerprints. Native JSON.stringify with
 * a sorting replacer writes the same text as the walk at less than half its cost on large bodies.
 */
export function canonicalJson(value: unknown): string {
  try {
    return JSON.stringify(value, sortedKeys) ?? "null";
  } catch (e) {
    if (e !== INDEX_KEY) throw e;
    return canonicalWalk(value);
  }
}
