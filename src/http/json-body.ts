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

/** Deepest nesting of arrays/objects in JSON text, without parsing it. */
export function jsonDepth(text: string): number {
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (inString) {
      if (ch === "\\") i++;
      else if (ch === '"') inString = false;
    } else if (ch === '"') inString = true;
    else if (ch === "{" || ch === "[") max = Math.max(max, ++depth);
    else if (ch === "}" || ch === "]") depth--;
  }
  return max;
}

export async function readJsonBody(request: Request, maxBytes: number): Promise<unknown> {
  const text = await readCapped(request, maxBytes);
  if (jsonDepth(text) > MAX_JSON_DEPTH) {
    throw badRequest("invalid_json", `Request body nests deeper than ${MAX_JSON_DEPTH} levels; flatten it.`);
  }
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw badRequest("invalid_json", "Request body must be a JSON object.");
  }
}

/** Canonical JSON (sorted keys), the basis of idempotency fingerprints. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value && typeof value === "object") {
    const obj = value as Record<string, unknown>;
    return `{${Object.keys(obj)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalJson(obj[k])}`)
      .join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}
