/**
 * Sets of Unicode code points as sorted, disjoint ranges: what one piece of a regular
 * expression can match, for the shape check in ./regex-shape (JSON Schema patterns run
 * with the `u` flag and no `i`, so no case folding).
 */

export type Ranges = readonly (readonly [number, number])[];

const MAX_CODE_POINT = 0x10ffff;
export const ALL: Ranges = [[0, MAX_CODE_POINT]];
export const NONE: Ranges = [];
const DIGIT: Ranges = [[48, 57]];
const WORD: Ranges = [[48, 57], [65, 90], [95, 95], [97, 122]];
const SPACE: Ranges = [
  [9, 13], [32, 32], [160, 160], [0x1680, 0x1680], [0x2000, 0x200a], [0x2028, 0x2029],
  [0x202f, 0x202f], [0x205f, 0x205f], [0x3000, 0x3000], [0xfeff, 0xfeff],
];
export const LINE_TERMINATORS: Ranges = [[10, 10], [13, 13], [0x2028, 0x2029]];

export function union(a: Ranges, b: Ranges): Ranges {
  const sorted = [...a, ...b].sort((x, y) => x[0] - y[0]);
  const out: [number, number][] = [];
  for (const [lo, hi] of sorted) {
    const last = out[out.length - 1];
    if (last && lo <= last[1] + 1) last[1] = Math.max(last[1], hi);
    else out.push([lo, hi]);
  }
  return out;
}

export function complement(a: Ranges): Ranges {
  const out: [number, number][] = [];
  let next = 0;
  for (const [lo, hi] of a) {
    if (lo > next) out.push([next, lo - 1]);
    next = hi + 1;
  }
  if (next <= MAX_CODE_POINT) out.push([next, MAX_CODE_POINT]);
  return out;
}

export function overlap(a: Ranges, b: Ranges): boolean {
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    if (a[i]![1] < b[j]![0]) i++;
    else if (b[j]![1] < a[i]![0]) j++;
    else return true;
  }
  return false;
}

/** The class escapes `\d \D \w \W \s \S`. */
export const ESCAPES: Record<string, Ranges> = {
  d: DIGIT, D: complement(DIGIT), w: WORD, W: complement(WORD), s: SPACE, S: complement(SPACE),
};
