/**
 * Text a remote answered with, before it is stored, returned or sent on: a server that echoes the
 * request (a debugging endpoint on the same origin, which a key holder may point a stored secret
 * at, or a model asked to repeat its key) must not hand a secret to whoever reads the job or to
 * the next tool. Every one of the tenant's stored secrets is taken out in each form it can come
 * back in: as sent, base64 and base64url (at each of the three byte alignments inside a longer
 * encoded text, so an echoed `Authorization` header in an image part is caught too),
 * percent-encoded and hex; and each of those as a JSON or an HTML encoder writes it, any of its
 * characters escaped (`AKIA\/wJal…`, `AKIA&#47;wJal…&#43;bPx`, `\u0041`, ./escapes.ts). Secrets
 * shorter than 8 characters are left alone: they would match ordinary text, and no real
 * credential is that short.
 */
import { hex } from "./digest";
import { readings } from "./escapes";
import { LiteralSearch } from "./literal-search";

export const REDACTED = "***";

const MIN_SECRET_CHARS = 8;

const utf8 = (text: string) => new TextEncoder().encode(text);

function base64(bytes: Uint8Array): string {
  let binary = "";
  for (const b of bytes) binary += String.fromCharCode(b);
  return btoa(binary);
}

/**
 * The base64 text `secret` becomes wherever it sits in a longer encoded text: at an offset of 0, 1
 * or 2 bytes from a 3-byte group, only the characters made of its own bits are fixed.
 */
function base64Cores(secret: Uint8Array): string[] {
  return [0, 1, 2].map((shift) => {
    const padded = new Uint8Array(shift + secret.length);
    padded.set(secret, shift);
    const encoded = base64(padded);
    return encoded.slice(Math.ceil((8 * shift) / 6), Math.floor((8 * (shift + secret.length)) / 6));
  });
}

/** Every form of `secret` a remote's text is searched for. */
export function secretForms(secret: string): string[] {
  const bytes = utf8(secret);
  const cores = base64Cores(bytes);
  const percent = encodeURIComponent(secret);
  const forms = [
    secret,
    ...cores,
    ...cores.map((c) => c.replace(/\+/g, "-").replace(/\//g, "_")),
    percent,
    percent.replace(/%[0-9A-F]{2}/g, (code) => code.toLowerCase()),
    hex(bytes),
    hex(bytes).toUpperCase(),
  ];
  return [...new Set(forms)].filter((form) => form.length >= MIN_SECRET_CHARS);
}

/** Redactors by their set of secrets: a chat's calls share its tenant's set. */
const compiled = new Map<string, (text: string) => string>();
const COMPILED_SETS = 64;

const unchanged = (text: string) => text;

/** A function that takes every form of each secret out of a text. */
export function redactor(secrets: readonly (string | undefined)[]): (text: string) => string {
  const usable = [
    ...new Set(secrets.filter((s): s is string => typeof s === "string" && s.length >= MIN_SECRET_CHARS)),
  ].sort();
  if (usable.length === 0) return unchanged;
  const key = usable.join("\u0000");
  let redact = compiled.get(key);
  if (!redact) {
    const search = new LiteralSearch([...new Set(usable.flatMap(secretForms))]);
    // Encoded forms hold neither (base64, percent and hex): only the secrets themselves can.
    const layeredOnly = !usable.some((secret) => secret.includes("\\") || secret.includes("&"));
    redact = (text: string) => redactFound(text, search, layeredOnly);
    if (compiled.size >= COMPILED_SETS) compiled.delete(compiled.keys().next().value!);
    compiled.set(key, redact);
  }
  return redact;
}

/**
 * `text` with every form of a secret taken out, found in the text as written and in each way a
 * JSON or an HTML decoder reads it (./escapes.ts), so any of a form's characters may be escaped.
 * Reading the escapes first and searching for the same literals keeps the cost linear in the
 * text, whatever the secrets: a pattern per form with each encoding of each character as an
 * alternative would be ten times the size of all forms together, and where two alternatives start
 * alike (a literal `&` and the `&amp;` that stands for it) V8's backtracking engine tries both at
 * each such character.
 *
 * Cost, measured in Node 20 on a busy 2-core machine with 50 secrets of 40 characters (about 400
 * forms) and 1 MB of text: about 10 ms without escapes, 45 ms JSON-escaped throughout, 100 ms with
 * escapes of both kinds (three readings and four searches), the worst; building the search for a
 * set of secrets, 5 to 30 ms, once per isolate. Secrets without a backslash or an ampersand (base64
 * keys and tokens, nearly all) need one reading and two searches: the worst is about a half.
 *
 * The text as written is searched too: a secret that holds an escape itself (`a&amp;b`) is found
 * only there, since reading turns its `&amp;` into `&`. Stretches found in several readings, or
 * forms that overlap, become one `***`.
 */
function redactFound(text: string, search: LiteralSearch, layeredOnly: boolean): string {
  let spans = search.spans(text);
  const read = readings(text, { layeredOnly });
  if (read.length > 0) {
    for (const { codes, at } of read) {
      for (const [start, end] of search.spans(codes)) spans.push([at[start]!, at[end]!]);
    }
    spans = merged(spans);
  }
  if (spans.length === 0) return text;
  const parts: string[] = [];
  let from = 0;
  for (const [start, end] of spans) {
    parts.push(text.slice(from, start), REDACTED);
    from = end;
  }
  parts.push(text.slice(from));
  return parts.join("");
}

/** `spans` in order, those that overlap made one; those that only touch stay two, as in one search. */
function merged(spans: [number, number][]): [number, number][] {
  spans.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  const out: [number, number][] = [];
  for (const [start, end] of spans) {
    const last = out[out.length - 1];
    if (last && start < last[1]) last[1] = Math.max(last[1], end);
    else out.push([start, end]);
  }
  return out;
}

export function redact(text: string, secrets: readonly (string | undefined)[]): string {
  return redactor(secrets)(text);
}

/** `value` with every string in it redacted (content parts, a model's tool-call arguments). */
export function redactDeep<T>(value: T, redact: (text: string) => string): T {
  if (redact === unchanged) return value;
  if (typeof value === "string") return redact(value) as T;
  if (Array.isArray(value)) return value.map((item) => redactDeep(item, redact)) as T;
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, redactDeep(v, redact)])) as T;
  }
  return value;
}
