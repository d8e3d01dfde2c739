/**
 * Every method checks the keys it is handed against the ones it knows. In JavaScript a misspelt or
 * misplaced key (`toolCalls(chat, {tool_calls, wiat: false})`) would otherwise be dropped on the way
 * and the call run as if it had never been said: here it throws a `TypeError` that names the key, the
 * likely one meant, and where a key of the other argument goes.
 */

/**
 * The names of an options type, written once as `{name: true, …}`: the compiler holds the list to the
 * type, so a key added to an options type and not here (or the other way round) fails the build.
 */
export const optionNames = <T>(names: { [K in keyof Required<T>]: true }): readonly string[] => Object.keys(names);

/** What a method takes, by argument: its own keys, and the other argument's (to say where a key goes). */
export interface Takes {
  /** `options`, or a body's name such as `calls`. */
  what: string;
  known: readonly string[];
  /** The method's other object argument, when it has one: a key of it sent here is told where it goes. */
  other?: { what: string; known: readonly string[] };
}

/** A key a method does not take: a `TypeError`, as a misspelt property is in JavaScript. */
export class UnknownOptionError extends TypeError {
  override readonly name = "UnknownOptionError";
}

export function checkKeys(method: string, given: unknown, takes: Takes): void {
  if (given === undefined || given === null || typeof given !== "object" || Array.isArray(given)) return;
  const unknown = Object.keys(given).filter((key) => !takes.known.includes(key));
  if (unknown.length === 0) return;
  const key = unknown[0]!;
  throw new UnknownOptionError(`${method}: ${takes.what} has no \`${key}\`. ${advice(key, takes)}`);
}

function advice(key: string, takes: Takes): string {
  if (takes.other?.known.includes(key)) return `\`${key}\` goes in ${takes.other.what}.`;
  const near = nearest(key, takes.known);
  const list = takes.known.map((k) => `\`${k}\``).join(", ");
  return `${near ? `Did you mean \`${near}\`? ` : ""}It takes ${list}.`;
}

/** The known key within two edits of `key` (case aside), if one is. */
function nearest(key: string, known: readonly string[]): string | undefined {
  const lower = key.toLowerCase();
  let best: { name: string; distance: number } | undefined;
  for (const name of known) {
    const distance = editDistance(lower, name.toLowerCase());
    if (distance <= 2 && (!best || distance < best.distance)) best = { name, distance };
  }
  return best?.name;
}

/** Levenshtein distance with adjacent swaps counted as one edit (`wiat` → `wait`). */
function editDistance(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) => [i, ...new Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) d[0]![j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let v = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) v = Math.min(v, d[i - 2]![j - 2]! + 1);
      d[i]![j] = v;
    }
  }
  return d[a.length]![b.length]!;
}
