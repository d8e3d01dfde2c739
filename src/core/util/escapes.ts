/**
 * A remote's text as a JSON or an HTML decoder would read it, with where each character came
 * from. A server that echoes a secret may write it escaped: `AKIA\/wJal…` from a JSON encoder
 * that escapes `/`, `AKIA&#47;wJal…&#43;bPx` from an HTML one, any character as `\u0041`, and
 * the layers mixed (HTML-escaped text inside a JSON string). Reading every escape as the
 * character it stands for gives a text in which each character of a secret is itself again,
 * however each one was written; redaction searches those readings too (./redact.ts) and takes out
 * the stretch of the original each match came from.
 *
 * Escapes read: JSON's `\"` `\\` `\/` `\b` `\f` `\n` `\r` `\t` and `\uXXXX` (either case of hex);
 * HTML numeric references, decimal `&#47;` and hex `&#x2F;`/`&#X2f;`, with any number of leading
 * zeros; and the named references of ASCII characters (`&amp;`, `&lt;`, `&gt;`, `&quot;`,
 * `&apos;`, `&sol;`, `&plus;`, `&equals;`, …). One level only: `&amp;#47;` reads as `&#47;`.
 * Read by hand, one character at a time: a digit run that ends in no `;` is read again as plain
 * characters, so no character is looked at more than twice.
 */

const code = (c: string) => c.charCodeAt(0);

/** JSON's two-character escapes: the character after the backslash, and what it stands for (-1: none). */
const SHORT_JSON = new Int32Array(128).fill(-1);
for (const [k, v] of Object.entries({ '"': '"', "\\": "\\", "/": "/", b: "\b", f: "\f", n: "\n", r: "\r", t: "\t" })) {
  SHORT_JSON[code(k)] = code(v);
}

/** The named references HTML has for ASCII characters; names are case-sensitive. */
const NAMED = new Map<string, number>(
  Object.entries({
    amp: "&",
    AMP: "&",
    lt: "<",
    LT: "<",
    gt: ">",
    GT: ">",
    quot: '"',
    QUOT: '"',
    apos: "'",
    sol: "/",
    plus: "+",
    equals: "=",
    excl: "!",
    num: "#",
    dollar: "$",
    percnt: "%",
    lpar: "(",
    rpar: ")",
    ast: "*",
    midast: "*",
    comma: ",",
    period: ".",
    colon: ":",
    semi: ";",
    quest: "?",
    commat: "@",
    lsqb: "[",
    lbrack: "[",
    bsol: "\\",
    rsqb: "]",
    rbrack: "]",
    Hat: "^",
    lowbar: "_",
    UnderBar: "_",
    grave: "`",
    DiacriticalGrave: "`",
    lcub: "{",
    lbrace: "{",
    verbar: "|",
    vert: "|",
    VerticalLine: "|",
    rcub: "}",
    rbrace: "}",
    Tab: "\t",
    NewLine: "\n",
  }).map(([k, v]) => [k, code(v)]),
);
const LONGEST_NAME = Math.max(...[...NAMED.keys()].map((name) => name.length));

const BACKSLASH = code("\\");
const AMPERSAND = code("&");
const SEMICOLON = code(";");
const HASH = code("#");
const U = code("u");
const X = code("x");

function hexDigit(c: number): number {
  if (c >= 48 && c <= 57) return c - 48;
  const lower = c | 0x20;
  return lower >= 97 && lower <= 102 ? lower - 87 : -1;
}

const isLetter = (c: number) => (c | 0x20) >= 97 && (c | 0x20) <= 122;

/** What the escape at `i` was read as: the code point, and the index after it. */
let readPoint = 0;
let readEnd = 0;

/** Whether a JSON escape starts at `i` (a backslash); sets readPoint and readEnd. */
function jsonEscape(text: string, i: number): boolean {
  const next = text.charCodeAt(i + 1);
  if (next === U) {
    let value = 0;
    for (let k = i + 2; k < i + 6; k++) {
      const digit = hexDigit(text.charCodeAt(k));
      if (digit < 0) return false;
      value = value * 16 + digit;
    }
    readPoint = value;
    readEnd = i + 6;
    return true;
  }
  const short = next < 128 ? SHORT_JSON[next]! : -1;
  if (short < 0) return false;
  readPoint = short;
  readEnd = i + 2;
  return true;
}

/** Whether an HTML reference starts at `i` (an ampersand); sets readPoint and readEnd. */
function htmlReference(text: string, i: number): boolean {
  let k = i + 1;
  if (text.charCodeAt(k) === HASH) {
    k++;
    const hex = (text.charCodeAt(k) | 0x20) === X;
    if (hex) k++;
    const first = k;
    let value = 0;
    for (; ; k++) {
      const c = text.charCodeAt(k);
      const digit = hex ? hexDigit(c) : c >= 48 && c <= 57 ? c - 48 : -1;
      if (digit < 0) break;
      // Past the last code point the value only needs to stay past it.
      value = Math.min(value * (hex ? 16 : 10) + digit, 0x110000);
    }
    if (k === first || text.charCodeAt(k) !== SEMICOLON) return false;
    if (value >= 0x110000 || (value >= 0xd800 && value <= 0xdfff)) return false;
    readPoint = value;
    readEnd = k + 1;
    return true;
  }
  while (k - i - 1 < LONGEST_NAME && isLetter(text.charCodeAt(k))) k++;
  if (k === i + 1 || text.charCodeAt(k) !== SEMICOLON) return false;
  const named = NAMED.get(text.slice(i + 1, k));
  if (named === undefined) return false;
  readPoint = named;
  readEnd = k + 1;
  return true;
}

export interface Reading {
  /** The text with every escape read as its character (UTF-16 code units). */
  codes: Uint16Array;
  /** `at[i]`: where in the original `codes[i]` starts; one more entry, the original's length. */
  at: Int32Array;
}

/**
 * `text` as a JSON decoder (`json`), an HTML one (`html`) or both layered read it; undefined when
 * it holds none of those escapes.
 */
function read(text: string, json: boolean, html: boolean): Reading | undefined {
  let codes: Uint16Array | undefined;
  let at: Int32Array | undefined;
  let length = 0;
  for (let i = 0; i < text.length; ) {
    const c = text.charCodeAt(i);
    if ((json && c === BACKSLASH && jsonEscape(text, i)) || (html && c === AMPERSAND && htmlReference(text, i))) {
      if (!codes || !at) {
        // Most texts with a backslash or an ampersand hold no escape: no copy until the first.
        codes = new Uint16Array(text.length);
        at = new Int32Array(text.length + 1);
        for (; length < i; length++) {
          codes[length] = text.charCodeAt(length);
          at[length] = length;
        }
      }
      if (readPoint > 0xffff) {
        codes[length] = 0xd800 + ((readPoint - 0x10000) >> 10);
        at[length++] = i;
        codes[length] = 0xdc00 + ((readPoint - 0x10000) & 0x3ff);
      } else {
        codes[length] = readPoint;
      }
      at[length++] = i;
      i = readEnd;
      continue;
    }
    if (codes && at) {
      codes[length] = c;
      at[length++] = i;
    }
    i++;
  }
  if (!codes || !at) return undefined;
  at[length] = text.length;
  return { codes: codes.subarray(0, length), at: at.subarray(0, length + 1) };
}

/**
 * Every way a decoder may read `text`: as JSON, as HTML, and, when it holds escapes of both kinds,
 * as HTML-escaped text inside a JSON string. Each is needed when a secret holds escape-like text:
 * one that holds `\u0041` itself, HTML-escaped, is found only by the HTML reading, which leaves
 * that `\u0041` as written. `layeredOnly`: the secrets hold no backslash and no ampersand, so the
 * one reading of both kinds finds every form the three would (a third of the work).
 */
export function readings(text: string, { layeredOnly = false } = {}): Reading[] {
  if (layeredOnly) {
    // Both kinds read in one pass: enough when no secret holds a backslash or an ampersand itself.
    const both = text.includes("\\") || text.includes("&") ? read(text, true, true) : undefined;
    return both ? [both] : [];
  }
  const json = text.includes("\\") ? read(text, true, false) : undefined;
  const html = text.includes("&") ? read(text, false, true) : undefined;
  if (json && html) return [json, html, read(text, true, true)!];
  return json ? [json] : html ? [html] : [];
}
