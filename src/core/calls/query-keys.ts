/**
 * Keys a request takes in its query, never in its body (docs/api.md#the-parallel-route): where its
 * events go, its metadata, what it may spend. In tool arguments a model could redirect results or pose
 * as the bot; in a `/tool-calls` body the bot meant them but they would be lost. Either way the answer
 * says where they go, for a bot on HTTP and for one on the client.
 */
import { badRequest } from "../http/errors";

/** Each query key, and the name the client's options give it. */
const QUERY_KEYS = { callback_url: "callbackUrl", notify: "notify", metadata: "metadata", budget: "budget" } as const;

/** Refuses the first query key `body` holds: `where` is "tool arguments" or "the body". */
export function refuseQueryKeys(body: Record<string, unknown>, where: "tool arguments" | "the body"): void {
  const key = (Object.keys(QUERY_KEYS) as (keyof typeof QUERY_KEYS)[]).find((k) => k in body);
  if (!key) return;
  throw badRequest(
    "option_not_allowed_in_tool_args",
    `\`${key}\` is set by the bot, not the model: pass it as the query parameter ?${key}= (or the client's \`{ ${QUERY_KEYS[key]} }\` option), not inside ${where}.`,
  );
}
