/**
 * Where any of many literal strings occur in a text, found in one pass over it (Aho-Corasick):
 * the links back it follows on a mismatch are never more than the characters it has read, so the
 * work is linear in the text whatever the literals are and however many share a beginning.
 * Redaction searches every remote's text for all forms of all of a tenant's secrets, about 400
 * literals for 50 secrets; a RegExp alternation of them, which V8 tries alternative by alternative
 * at each position, took 150 ms per MB, and a tenant could choose secrets that make each try long.
 */

const NONE = -1;
/** `single[state]` when a state has more than one child: they are in `many[state]`. */
const SEVERAL = -2;
/** Characters below this go from the first state through a table: most of a text is read there. */
const TABLE_CHARS = 128;

export class LiteralSearch {
  /** The one child's character, NONE or SEVERAL. */
  readonly #single: Int32Array;
  readonly #singleNext: Int32Array;
  readonly #many: (Map<number, number> | undefined)[];
  /** Where to go on when no child continues: the longest proper suffix that is in the trie. */
  readonly #fail: Int32Array;
  /** The length of the longest literal the state's text ends with, 0 for none. */
  readonly #longest: Int32Array;
  readonly #fromFirst = new Int32Array(TABLE_CHARS).fill(NONE);

  constructor(literals: readonly string[]) {
    const single: number[] = [NONE];
    const singleNext: number[] = [NONE];
    const many: (Map<number, number> | undefined)[] = [undefined];
    const own: number[] = [0];
    const child = (state: number, c: number): number => {
      if (single[state] === c) return singleNext[state]!;
      return many[state]?.get(c) ?? NONE;
    };
    for (const literal of literals) {
      if (literal.length === 0) continue;
      let state = 0;
      for (let i = 0; i < literal.length; i++) {
        const c = literal.charCodeAt(i);
        let next = child(state, c);
        if (next === NONE) {
          next = single.length;
          single.push(NONE);
          singleNext.push(NONE);
          many.push(undefined);
          own.push(0);
          if (single[state] === NONE) {
            single[state] = c;
            singleNext[state] = next;
          } else {
            if (single[state] !== SEVERAL) many[state] = new Map([[single[state]!, singleNext[state]!]]);
            single[state] = SEVERAL;
            many[state]!.set(c, next);
          }
        }
        state = next;
      }
      own[state] = Math.max(own[state]!, literal.length);
    }
    const states = single.length;
    this.#single = Int32Array.from(single);
    this.#singleNext = Int32Array.from(singleNext);
    this.#many = many;
    this.#fail = new Int32Array(states);
    this.#longest = Int32Array.from(own);
    // Breadth first, so a state's fail link and its longest literal are known before its children's.
    const queue = new Int32Array(states);
    let tail = 0;
    const link = (state: number, c: number, next: number) => {
      let fail = 0;
      if (state === 0) {
        if (c < TABLE_CHARS) this.#fromFirst[c] = next;
      } else {
        let back = this.#fail[state]!;
        let to = this.#step(back, c);
        while (to === NONE && back !== 0) {
          back = this.#fail[back]!;
          to = this.#step(back, c);
        }
        fail = to === NONE ? 0 : to;
      }
      this.#fail[next] = fail;
      this.#longest[next] = Math.max(this.#longest[next]!, this.#longest[fail]!);
      queue[tail++] = next;
    };
    for (let head = -1; head < tail; head++) {
      const state = head < 0 ? 0 : queue[head]!;
      const c = this.#single[state]!;
      if (c === SEVERAL) for (const [k, next] of this.#many[state]!) link(state, k, next);
      else if (c !== NONE) link(state, c, this.#singleNext[state]!);
    }
  }

  #step(state: number, c: number): number {
    if (this.#single[state] === c) return this.#singleNext[state]!;
    if (this.#single[state] !== SEVERAL) return NONE;
    return this.#many[state]!.get(c) ?? NONE;
  }

  /**
   * Every stretch of `text` (a string, or its UTF-16 code units) some literal covers, as
   * [start, end) pairs in order: literals that overlap make one stretch, literals that only touch
   * stay two.
   */
  spans(text: string | Uint16Array): [number, number][] {
    const found: [number, number][] = [];
    const units = typeof text === "string" ? undefined : text;
    const written = typeof text === "string" ? text : "";
    let state = 0;
    for (let i = 0; i < text.length; i++) {
      const c = units ? units[i]! : written.charCodeAt(i);
      let next = state === 0 ? (c < TABLE_CHARS ? this.#fromFirst[c]! : this.#step(0, c)) : this.#step(state, c);
      while (next === NONE && state !== 0) {
        state = this.#fail[state]!;
        next = state === 0 && c < TABLE_CHARS ? this.#fromFirst[c]! : this.#step(state, c);
      }
      state = next === NONE ? 0 : next;
      const length = this.#longest[state]!;
      if (length === 0) continue;
      // The longest literal ending here covers every shorter one that does; it may reach back over
      // stretches already found.
      let start = i + 1 - length;
      while (found.length > 0 && start < found[found.length - 1]![1]) start = Math.min(start, found.pop()![0]);
      found.push([start, i + 1]);
    }
    return found;
  }
}
