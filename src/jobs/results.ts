/**
 * Result sizes. A stored result is cut to `max_stored_result_bytes` (SQLite
 * rows stop at 2 MB); what a response shows is cut further to
 * `max_result_chars` at read time (see payloads), so the limit applies per request.
 */

/**
 * What a job's stored result and MCP content parts may take together: the most
 * `max_stored_result_bytes` allows, leaving the rest of SQLite's 2 MB row (2,097,152
 * bytes) to the job's other columns.
 */
export const STORED_ROW_BYTES = 2_000_000;

export function cutStoredResult(result: string, maxBytes: number): { result: string; result_truncated: boolean } {
  const bytes = new TextEncoder().encode(result);
  if (bytes.length <= maxBytes) return { result, result_truncated: false };
  // Decoding a cut UTF-8 sequence yields U+FFFD at the end; drop it rather than store a broken character.
  const cut = new TextDecoder().decode(bytes.slice(0, maxBytes)).replace(/\uFFFD+$/, "");
  return { result: cut, result_truncated: true };
}
