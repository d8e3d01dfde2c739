/**
 * Lenient argument coercion, matching how Agent Zero's `parallel` tool reads
 * what a model wrote (docs/api.md#arguments-and-call-shapes): models emit "true", "30", 30.7 and null for
 * the same intent, and a strict schema would bounce most of them.
 */
import { badRequest } from "../http/errors";

/** Python's repr() of a JSON value, for error texts models already know. */
export function pyRepr(value: unknown): string {
  if (value === null || value === undefined) return "None";
  if (value === true) return "True";
  if (value === false) return "False";
  if (typeof value === "string") return pyStringRepr(value);
  if (typeof value === "number") return String(value);
  return JSON.stringify(value);
}

function pyStringRepr(s: string): string {
  const quote = s.includes("'") && !s.includes('"') ? '"' : "'";
  const body = s
    .replace(/\\/g, "\\\\")
    .replace(/\n/g, "\\n")
    .replace(/\r/g, "\\r")
    .replace(/\t/g, "\\t")
    .replaceAll(quote, `\\${quote}`);
  return `${quote}${body}${quote}`;
}

/** Python truthiness of a JSON value. */
export function truthy(value: unknown): boolean {
  if (Array.isArray(value)) return value.length > 0;
  if (value && typeof value === "object") return Object.keys(value).length > 0;
  return Boolean(value);
}

const TRUE_WORDS = new Set(["1", "true", "yes", "on"]);
const FALSE_WORDS = new Set(["0", "false", "no", "off"]);

export function coerceBool(value: unknown, fallback: boolean): boolean {
  if (value === undefined || value === null) return fallback;
  if (typeof value === "boolean") return value;
  if (typeof value === "string") {
    const word = value.trim().toLowerCase();
    if (TRUE_WORDS.has(word)) return true;
    if (FALSE_WORDS.has(word)) return false;
  }
  return truthy(value);
}

/** int() semantics: integers, numeric strings, floats truncated toward zero, booleans as 0/1. */
function toInt(value: unknown): number | undefined {
  if (typeof value === "boolean") return value ? 1 : 0;
  if (typeof value === "number") return Number.isFinite(value) ? Math.trunc(value) : undefined;
  if (typeof value === "string" && /^\s*[+-]?\d+\s*$/.test(value)) return Number.parseInt(value, 10);
  return undefined;
}

/**
 * Seconds from `timeout` / `job_timeout`. `undefined` and `""` mean "not given".
 * The upper bound is the caller's business: `timeout` is capped, `job_timeout` refused.
 */
export function coerceSeconds(name: "timeout" | "job_timeout", value: unknown): number | undefined {
  if (value === undefined || value === null || value === "") return undefined;
  const seconds = toInt(value);
  if (seconds === undefined) {
    throw badRequest("invalid_timeout", `\`${name}\` must be an integer number of seconds, got ${pyRepr(value)}.`);
  }
  if (seconds <= 0) throw badRequest("invalid_timeout", `\`${name}\` must be greater than 0.`);
  return seconds;
}

/** `job_ids`: one string (not split) or an array stringified, blanks and repeats dropped. */
export function normalizeJobIds(value: unknown): string[] {
  if (value === undefined || value === null) return [];
  if (typeof value === "string") return value.trim() ? [value] : [];
  if (!Array.isArray(value)) {
    throw badRequest("invalid_job_ids", "`job_ids` must be a string or an array of strings.");
  }
  const ids: string[] = [];
  for (const item of value) {
    const id = typeof item === "string" ? item : pyStr(item);
    if (id.trim() && !ids.includes(id)) ids.push(id);
  }
  return ids;
}

/** Python's str() of a JSON value, as Agent Zero applies it to job id items. */
function pyStr(value: unknown): string {
  if (typeof value === "string") return value;
  if (typeof value === "number") return String(value);
  return pyRepr(value);
}
