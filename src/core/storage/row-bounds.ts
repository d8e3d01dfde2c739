/**
 * What fits in one SQLite row (rows stop at 2 MB): a job's stored result, its
 * arguments, MCP content parts, an agent-loop message. A stored result is cut
 * to `max_stored_result_bytes`; what a response shows is cut further to
 * `max_result_chars` at read time (see `src/core/jobs/payloads.ts`), so the limit
 * applies per request. Below jobs and tools, which both cut to these bounds.
 */

/**
 * What a job's stored result and MCP content parts may take together: the most
 * `max_stored_result_bytes` allows, leaving the rest of SQLite's 2 MB row (2,097,152
 * bytes) to the job's other columns.
 */
export const STORED_ROW_BYTES = 2_000_000;

/**
 * The most one call's arguments may take, as JSON: they are stored in the job's row and again as
 * the log row's `kvps`, beside the result. Without it a `max_body_bytes` of 10 MiB (its bound until
 * round 4) let one call's row pass SQLite's 2 MB, which local workerd accepts and production refuses.
 */
export const MAX_CALL_ARGS_BYTES = 524_288;

export const utf8Length = (text: string) => new TextEncoder().encode(text).length;

/** One stored message of an agent loop, JSON as written: well under SQLite's 2 MB row. */
export const MAX_MESSAGE_BYTES = 1_000_000;

/**
 * Room for a job's result or error text beside what its row already holds (its arguments, a
 * subordinate's request), within `max_stored_result_bytes`: the job row, and the log row that
 * repeats the arguments beside the same text, both stay under 2 MB.
 */
export function rowRoom(beside: (string | null)[], maxStoredBytes: number): number {
  const used = beside.reduce((n, text) => n + (text === null ? 0 : utf8Length(text)), 0);
  return Math.max(0, Math.min(maxStoredBytes, STORED_ROW_BYTES - used));
}

export function cutStoredResult(result: string, maxBytes: number): { result: string; result_truncated: boolean } {
  const bytes = new TextEncoder().encode(result);
  if (bytes.length <= maxBytes) return { result, result_truncated: false };
  // Decoding a cut UTF-8 sequence yields U+FFFD at the end; drop it rather than store a broken character.
  // A leading U+FEFF is the result's own text, not a byte-order mark to strip.
  const cut = new TextDecoder("utf-8", { fatal: false, ignoreBOM: true })
    .decode(bytes.slice(0, maxBytes))
    .replace(/\uFFFD+$/, "");
  return { result: cut, result_truncated: true };
}

/**
 * `text` cut so that, written as a JSON string beside `besideBytes` of other JSON, it takes at
 * most `maxBytes`. JSON escaping can make a character take 6 bytes: each try shrinks the cut by
 * how much the last one overshot, which fits within a few tries.
 */
export function cutForJson(text: string, besideBytes: number, maxBytes: number): { text: string; cut: boolean } {
  const room = Math.max(0, maxBytes - besideBytes);
  let size = utf8Length(JSON.stringify(text));
  if (size <= room) return { text, cut: false };
  let budget = room;
  for (let tries = 0; tries < 16 && budget > 0; tries++) {
    const candidate = cutStoredResult(text, budget).result;
    size = utf8Length(JSON.stringify(candidate));
    if (size <= room) return { text: candidate, cut: true };
    budget = Math.floor((budget * room) / size) - 8;
  }
  return { text: "", cut: true };
}
