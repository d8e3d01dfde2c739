/**
 * The bound on every name a request carries (a call's tool name, an agent or profile name, a
 * label, a `context_id`), and how error texts quote one. Red team, round 3: 31 calls named with
 * 250,000 characters each were quoted whole in their error entries and wrote an 8 MB
 * idempotency row; a name is now refused past 128 characters and quoted to 64. Ids and keys a
 * request names (job, event and chat ids, an `Idempotency-Key`) are quoted by the same rule: a
 * 5,000-character job id came back whole in its 404.
 */

export const MAX_NAME_CHARS = 128;
const QUOTED_NAME_CHARS = 64;

/** `name` (or an id or key from a request) as error texts quote it: at most its first 64 characters. */
export const quoteName = (name: string): string =>
  name.length > QUOTED_NAME_CHARS ? `${name.slice(0, QUOTED_NAME_CHARS)}…` : name;

/** Why `value`, given as `field`, is too long a name; undefined when it is not. */
export function overlongName(field: string, value: unknown): string | undefined {
  if (typeof value !== "string" || value.length <= MAX_NAME_CHARS) return undefined;
  return `${field} is ${value.length} characters long; a name is at most ${MAX_NAME_CHARS} ('${quoteName(value)}')`;
}
