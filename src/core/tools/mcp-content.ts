/**
 * What a model reads of an MCP tool's result, and what the job keeps of it
 * (docs/api.md#mcp-servers). A model needs the text: an image's base64 in its context costs
 * thousands of tokens and says nothing (a 4 KB PNG reached results as 5 KB of
 * JSON). So text parts are joined by lines, every other part becomes a short
 * placeholder (`[image image/png, 3.9 KB]`, `[resource <uri>]`), and the parts
 * themselves stay on the job's record (`GET …/jobs/{id}`, `content`).
 */
import { cutStoredResult, rowRoom, utf8Length } from "../storage/row-bounds";
import { isObject } from "../util/json";

/** One block of a `tools/call` result's `content`, as the server sent it (the SDK checked its shape). */
export type ContentPart = { type: string } & Record<string, unknown>;

/** The parts of a `tools/call` result this module reads; the older `toolResult` form included. */
export interface ToolCallContent {
  content?: ContentPart[];
  structuredContent?: unknown;
  /** Protocol 2024-10-07 results carry this instead of `content`. */
  toolResult?: unknown;
}

const TYPE_SHOWN_CHARS = 40;

const str = (v: unknown) => (typeof v === "string" ? v : undefined);

/** `512 B`, `3.9 KB`, `12 KB`, `1.5 MB`: one decimal under ten units, whole units above. */
export function byteSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const units = ["KB", "MB", "GB"];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  let shown = value < 10 ? Math.round(value * 10) / 10 : Math.round(value);
  if (shown >= 1024 && unit < units.length - 1) {
    shown = 1;
    unit++;
  }
  return `${shown} ${units[unit]}`;
}

/** The size of what base64 text decodes to, without decoding it. */
export function decodedBytes(base64: string): number {
  const compact = base64.replace(/\s+/g, "");
  const padding = compact.endsWith("==") ? 2 : compact.endsWith("=") ? 1 : 0;
  return Math.max(0, Math.floor((compact.length * 3) / 4) - padding);
}

/** The short form of a part that is not text: its kind and what a person would ask about it. */
export function placeholder(part: ContentPart): string {
  switch (part.type) {
    case "image":
    case "audio": {
      const data = str(part.data);
      const details = [str(part.mimeType), data === undefined ? undefined : byteSize(decodedBytes(data))].filter(
        Boolean,
      );
      return `[${[part.type, details.join(", ")].filter(Boolean).join(" ")}]`;
    }
    case "resource": {
      const uri = isObject(part.resource) ? str(part.resource.uri) : undefined;
      return uri ? `[resource ${uri}]` : "[resource]";
    }
    case "resource_link": {
      const uri = str(part.uri);
      return uri ? `[resource ${uri}]` : "[resource]";
    }
    default: {
      const type =
        typeof part.type === "string" && part.type ? [...part.type].slice(0, TYPE_SHOWN_CHARS).join("") : "unknown";
      return `[${type}]`;
    }
  }
}

/**
 * The text a model reads: every part in order, one per line, text as it is and anything else as
 * its placeholder. `structuredContent` is the same result as JSON, and the MCP spec asks a tool
 * that returns it to put its serialization in a text part as well; so it is used only when no
 * part is text, ahead of any placeholders (a result of structured data and an image keeps both).
 */
export function resultText(result: ToolCallContent): string {
  const parts = result.content ?? [];
  const lines = parts.map((p) => (p.type === "text" ? (str(p.text) ?? "") : placeholder(p)));
  const hasText = parts.some((p) => p.type === "text");
  if (!hasText) {
    const structured = result.structuredContent ?? (parts.length === 0 ? result.toolResult : undefined);
    if (structured !== undefined)
      lines.unshift(typeof structured === "string" ? structured : JSON.stringify(structured));
  }
  return lines.join("\n");
}

/** A part too big to keep: what it was, without its payload, marked `truncated`. */
function stub(part: ContentPart): ContentPart {
  const out: ContentPart = { type: part.type };
  const mimeType = str(part.mimeType) ?? (isObject(part.resource) ? str(part.resource.mimeType) : undefined);
  const uri = str(part.uri) ?? (isObject(part.resource) ? str(part.resource.uri) : undefined);
  if (mimeType) out.mimeType = mimeType;
  if (uri) out.uri = uri;
  out.truncated = true;
  return out;
}

/** A text part cut to fit `room` bytes of JSON, or undefined when not even an empty one fits. */
function cutText(part: ContentPart, room: number): ContentPart | undefined {
  const empty: ContentPart = { ...part, text: "", truncated: true };
  const target = room - utf8Length(JSON.stringify(empty));
  if (target < 0) return undefined;
  const text = str(part.text) ?? "";
  let allowed = target;
  // JSON escaping can make text longer than its UTF-8 (`"` doubles, control characters take six):
  // shrink in proportion until the escaped text fits.
  for (let i = 0; i < 16 && allowed > 0; i++) {
    const cut = cutStoredResult(text, Math.max(0, allowed)).result;
    const escaped = utf8Length(JSON.stringify(cut)) - 2;
    if (escaped <= target) return { ...part, text: cut, truncated: true };
    allowed = Math.floor((allowed * target) / escaped);
  }
  return empty;
}

/**
 * The parts as the job keeps them (JSON), at most `maxBytes`. Parts are kept whole, in order,
 * while they fit; the first that does not is cut (a text part) or kept as a stub without its
 * payload (`{"type","mimeType"?,"uri"?,"truncated":true}`), and the same for each after it;
 * parts for which even that finds no room are left out.
 */
export function storedContent(parts: ContentPart[], maxBytes: number): string {
  const whole = JSON.stringify(parts);
  if (utf8Length(whole) <= maxBytes) return whole;
  const kept: ContentPart[] = [];
  let used = 2; // the brackets
  for (const part of parts) {
    const comma = kept.length > 0 ? 1 : 0;
    const room = maxBytes - used - comma;
    const size = utf8Length(JSON.stringify(part));
    const fitted = size <= room ? part : part.type === "text" ? cutText(part, room) : stub(part);
    if (!fitted) break;
    const fittedSize = fitted === part ? size : utf8Length(JSON.stringify(fitted));
    if (fittedSize > room) break;
    kept.push(fitted);
    used += comma + fittedSize;
  }
  return JSON.stringify(kept);
}

/**
 * Room for the parts beside what else the job's row holds (its stored result or error text, its
 * arguments, a subordinate's request): all share one row, which SQLite caps at 2 MB.
 */
export function contentBudget(beside: (string | null)[], maxStoredBytes: number): number {
  return Math.max(2, rowRoom(beside, maxStoredBytes));
}
