/**
 * Name globs of agent `tools` lists and `permission.task` (docs/api.md#names-and-agent-profiles):
 * `*` any run, `?` one character, case-insensitive, whole-name match.
 *
 * No regular expression is built from a glob: `*a*a*a*a*a*a*a*b` as a
 * backtracking regex took 4.5 s against 48-character names and stalled every
 * tenant sharing the isolate. The glob is cut at its stars into segments; the
 * first must fit the start of the name, the last its end, and each one between
 * is taken at its earliest fit after the one before. The earliest fit is never
 * wrong (a later one only leaves less room for the rest), so nothing is ever
 * retried: at most |name| × |glob| character comparisons, linear in the name.
 */

export interface GlobResult {
  matched: boolean;
  /** Character comparisons made: bounded by (|name| + 1) × (|glob| + 1). */
  comparisons: number;
}

export function globMatch(glob: string, name: string): boolean {
  return matchGlob(glob, name).matched;
}

export function matchGlob(glob: string, name: string): GlobResult {
  const pattern = fold(glob);
  const text = fold(name);
  let comparisons = 0;
  const fitsAt = (segment: string, at: number): boolean => {
    for (let i = 0; i < segment.length; i++) {
      comparisons++;
      if (segment[i] !== "?" && segment[i] !== text[at + i]) return false;
    }
    return true;
  };
  const result = (matched: boolean): GlobResult => ({ matched, comparisons });

  const segments = pattern.split("*");
  if (segments.length === 1) return result(pattern.length === text.length && fitsAt(pattern, 0));
  const head = segments[0]!;
  const tail = segments[segments.length - 1]!;
  const end = text.length - tail.length;
  if (head.length > end || !fitsAt(head, 0) || !fitsAt(tail, end)) return result(false);
  let from = head.length;
  for (const segment of segments.slice(1, -1)) {
    let at = from;
    while (at + segment.length <= end && !fitsAt(segment, at)) at++;
    if (at + segment.length > end) return result(false);
    from = at + segment.length;
  }
  return result(true);
}

/**
 * Whether `glob` matches some name that starts with `prefix` and goes on for at least one more
 * character: a rule's `docs__*` names tools of the MCP server `docs` before any is listed.
 * The glob is read as a set of positions (a star may stay or step past), advanced over the
 * prefix: (|prefix| + 1) × (|glob| + 1) comparisons at most, and nothing is ever retried.
 */
export function matchGlobPrefix(glob: string, prefix: string): GlobResult {
  const pattern = fold(glob);
  const text = fold(prefix);
  const m = pattern.length;
  let comparisons = 0;
  let live = new Uint8Array(m + 1);
  let next = new Uint8Array(m + 1);
  // A star may also step past itself without taking a character.
  const close = (set: Uint8Array) => {
    for (let j = 0; j < m; j++) if (set[j] && pattern[j] === "*") set[j + 1] = 1;
  };
  live[0] = 1;
  close(live);
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    next.fill(0);
    let any = false;
    comparisons += m;
    for (let j = 0; j < m; j++) {
      if (!live[j]) continue;
      if (pattern[j] === "*") next[j] = 1;
      else if (pattern[j] === "?" || pattern[j] === ch) next[j + 1] = 1;
      else continue;
      any = true;
    }
    if (!any) return { matched: false, comparisons };
    close(next);
    [live, next] = [next, live];
  }
  comparisons += m;
  // A position short of the end can take one more character; whatever follows it can be met.
  return { matched: live.subarray(0, m).includes(1), comparisons };
}

/**
 * Case folding one UTF-16 unit at a time, as a regular expression's `i` flag does without `u`
 * (ECMA-262 Canonicalize): a unit's upper case when that is a single unit, and never a
 * non-ASCII unit folded into ASCII. Lengths are kept, so indices of glob and name stay aligned.
 */
function fold(s: string): string {
  let out = "";
  for (let i = 0; i < s.length; i++) {
    const unit = s[i]!;
    const upper = unit.toUpperCase();
    out += upper.length === 1 && !(unit.charCodeAt(0) >= 128 && upper.charCodeAt(0) < 128) ? upper : unit;
  }
  return out;
}
