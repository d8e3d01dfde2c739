/**
 * The `Idempotency-Key` of a job-starting request (docs/api.md#idempotency), checked and
 * paired with a fingerprint of what the request asks for. `/parallel`,
 * `/spawn` and `/tool-calls` send both to the chat, which answers a replay
 * with the first answer's jobs and refuses a different request under the key.
 */
import { sha256Hex } from "../../core/util/digest";
import { badRequest } from "../../core/http/errors";
import { canonicalJson } from "../../core/http/json-body";

export const IDEMPOTENCY_KEY_PATTERN = /^[\x20-\x7e]{1,255}$/;

export async function idempotency(key: string | undefined, fingerprintOf: unknown) {
  if (key === undefined) return undefined;
  if (!IDEMPOTENCY_KEY_PATTERN.test(key)) {
    throw badRequest("invalid_idempotency_key", "Idempotency-Key must be 1-255 printable ASCII characters.");
  }
  return { key, fingerprint: await sha256Hex(canonicalJson(fingerprintOf)) };
}
