/**
 * The name a person most likely meant: `send_emial` → `send_email`. Configuration errors offer it
 * so that a typo is fixed in one step. Case is ignored, a swap of two neighbours counts as one
 * edit, and only near names are offered: at most two edits, and fewer than a third of the word.
 */

/** Edits from `a` to `b` (insert, delete, replace, swap neighbours), or `limit + 1` once past `limit`. */
export function editDistance(a: string, b: string, limit: number): number {
  if (Math.abs(a.length - b.length) > limit) return limit + 1;
  // Three rows of the optimal-string-alignment table; a row whose least entry is past `limit` ends it.
  let before = new Array<number>(b.length + 1).fill(0);
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    let least = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min(previous[j]! + 1, row[j - 1]! + 1, previous[j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, before[j - 2]! + 1);
      row.push(d);
      least = Math.min(least, d);
    }
    if (least > limit) return limit + 1;
    before = previous;
    previous = row;
  }
  return Math.min(previous[b.length]!, limit + 1);
}

/** The candidate nearest to `word`, when one is near enough to be what was meant. */
export function closestName(word: string, candidates: readonly string[]): string | undefined {
  const target = word.toLowerCase();
  const limit = Math.min(2, Math.ceil(target.length / 3) - 1);
  if (limit < 1) return undefined;
  let best: { name: string; distance: number } | undefined;
  for (const name of candidates) {
    const distance = editDistance(target, name.toLowerCase(), limit);
    if (distance <= limit && (!best || distance < best.distance)) best = { name, distance };
  }
  return best?.name;
}
