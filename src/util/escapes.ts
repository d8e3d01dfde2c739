/**
 * A remote's text as a JSON or an HTML decoder would read it, with where each character came
 * from. A server that echoes a secret may write it escaped: `AKIA\/wJal…` from a JSON encoder
 * that escapes `/`, `AKIA&#47;wJal…&#43;bPx` from an HTML one, any character as `\u0041`, and
 * the layers mixed (HTML-escaped text inside a JSON string). Reading every escape as the
 * character it stands for, in one pass and whichever encoder wrote it, gives a text in which each
 * character of a secret is itself again, however each one was written; redaction searches those
 * readings too (./redact.ts) and takes out the span of the original each match came from.
 *
 * Escapes read: JSON's `\"` `\\` `\/` `\b` `\f` `\n` `\r` `\t` and `\uXXXX` (either case of hex);
 * HTML numeric references, decimal `&#47;` and hex `&#x2F;`/`&#X2f;`, with any number of leading
 * zeros; and the named references of ASCII characters (`&amp;`, `&lt;`, `&gt;`, `&quot;`,
 * `&apos;`, `&sol;`, `&plus;`, `&equals;`, …). One level only: `&amp;#47;` reads as `&#47;`.
 */

const SHORT_JSON: Record<string, string> = { '"': '"', "\\": "\\", "/": "/", b: "\b", f: "\f", n: "\n", r: "\r", t: "\t" };

/** The named references HTML has for ASCII characters; names are case-sensitive. */
const NAMED: Record<string, string> = {
  amp: "&", AMP: "&", lt: "<", LT: "<", gt: ">", GT: ">", quot: '"', QUOT: '"', apos: "'",
  sol: "/", plus: "+", equals: "=", excl: "!", num: "#", dollar: "$", percnt: "%", lpar: "(", rpar: ")",
  ast: "*", midast: "*", comma: ",", period: ".", colon: ":", semi: ";", quest: "?", commat: "@",
  lsqb: "[", lbrack: "[", bsol: "\\", rsqb: "]", rbrack: "]", Hat: "^", lowbar: "_", UnderBar: "_",
  grave: "`", DiacriticalGrave: "`", lcub: "{", lbrace: "{", verbar: "|", vert: "|", VerticalLine: "|",
  rcub: "}", rbrace: "}", Tab: "\t", NewLine: "\n",
};

const JSON_ESCAPE = String.raw`\\(?:u(?<unit>[0-9A-Fa-f]{4})|(?<short>["\\/bfnrt]))`;
const HTML_REFERENCE = String.raw`&(?:#(?:(?<decimal>[0-9]+)|[xX](?<hex>[0-9A-Fa-f]+))|(?<name>${Object.keys(NAMED).join("|")}));`;

/**
 * The escapes a JSON decoder, an HTML one, or the two layered read. Each branch starts with `\` or
 * `&` and then a character no other branch starts with, and a digit run ends at one fixed
 * character: no branch backtracks into another, so each scan is linear in the text.
 */
const READERS = {
  json: new RegExp(JSON_ESCAPE, "g"),
  html: new RegExp(HTML_REFERENCE, "g"),
  both: new RegExp(`${JSON_ESCAPE}|${HTML_REFERENCE}`, "g"),
};

/** A code point an HTML numeric reference may stand for. */
const codePoint = (digits: string, radix: number): string | undefined => {
  const value = parseInt(digits, radix);
  return value <= 0x10ffff && !(value >= 0xd800 && value <= 0xdfff) ? String.fromCodePoint(value) : undefined;
};

function character(groups: Record<string, string | undefined>): string | undefined {
  const { unit, short, decimal, hex, name } = groups;
  if (unit !== undefined) return String.fromCharCode(parseInt(unit, 16));
  if (short !== undefined) return SHORT_JSON[short];
  if (decimal !== undefined) return codePoint(decimal, 10);
  if (hex !== undefined) return codePoint(hex, 16);
  return NAMED[name!];
}

export interface Unescaped {
  /** The text with every escape read as its character. */
  text: string;
  /** `at[i]`: where in the original the character `text[i]` starts; one more entry, the original's length. */
  at: Int32Array;
}

/** `text` as `reader` reads it, or undefined when it holds none of its escapes. */
function read(text: string, reader: RegExp): Unescaped | undefined {
  const parts: string[] = [];
  const at = new Int32Array(text.length + 1);
  let length = 0;
  let from = 0;
  for (const m of text.matchAll(reader)) {
    const char = character(m.groups!);
    if (char === undefined) continue;
    for (let i = from; i < m.index; i++) at[length++] = i;
    parts.push(text.slice(from, m.index), char);
    for (let i = 0; i < char.length; i++) at[length++] = m.index;
    from = m.index + m[0].length;
  }
  if (parts.length === 0) return undefined;
  for (let i = from; i < text.length; i++) at[length++] = i;
  parts.push(text.slice(from));
  at[length] = text.length;
  return { text: parts.join(""), at: at.subarray(0, length + 1) };
}

/**
 * Every way a decoder may read `text`: as JSON, as HTML, and, when it holds escapes of both kinds,
 * as HTML-escaped text inside a JSON string. Each is needed: a secret that holds `\u0041` itself,
 * HTML-escaped, is found only by the HTML reading, which leaves that `\u0041` as written.
 */
export function readings(text: string): Unescaped[] {
  if (!text.includes("\\") && !text.includes("&")) return [];
  const json = text.includes("\\") ? read(text, READERS.json) : undefined;
  const html = text.includes("&") ? read(text, READERS.html) : undefined;
  if (json && html) return [json, html, read(text, READERS.both)!];
  return json ? [json] : html ? [html] : [];
}
