/**
 * `?metadata=` or the `Fanout-Metadata` header (docs/api.md#request-metadata): a JSON object the bot
 * attaches to a batch, echoed in every event and record of the batch and its jobs so that a
 * webhook-driven bot can route an answer without a store of its own. Request metadata, never
 * model-written, and never in a payload a model reads.
 */
import { badRequest } from "../../core/http/errors";
import { isObject } from "../../core/util/json";
import { utf8Length } from "../../core/storage/row-bounds";

/** The most bytes a batch's metadata may take, as compact JSON. */
export const MAX_METADATA_BYTES = 2048;

const EXAMPLE = 'a JSON object such as {"telegram_chat_id":42,"user_id":"u7"}';

/** The metadata as compact JSON, or null when the request has none. */
export function requestMetadata(query: string | undefined, header: string | undefined): string | null {
  if (query !== undefined && header !== undefined) {
    throw badRequest(
      "invalid_metadata",
      "Send metadata once: as the `metadata` query parameter or as the Fanout-Metadata header, not both.",
    );
  }
  const raw = query ?? header;
  if (raw === undefined) return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw badRequest("invalid_metadata", `\`metadata\` must be ${EXAMPLE}; it is not JSON.`);
  }
  if (!isObject(parsed)) throw badRequest("invalid_metadata", `\`metadata\` must be ${EXAMPLE}.`);
  const compact = JSON.stringify(parsed);
  const bytes = utf8Length(compact);
  if (bytes > MAX_METADATA_BYTES) {
    throw badRequest(
      "invalid_metadata",
      `\`metadata\` takes ${bytes} bytes as JSON; it may take at most ${MAX_METADATA_BYTES}. Keep ids in it, not content.`,
    );
  }
  return compact;
}
