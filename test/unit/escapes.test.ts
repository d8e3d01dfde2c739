import { describe, expect, it } from "vitest";
import { readings } from "../../src/core/util/escapes";

const texts = (text: string) => readings(text).map((r) => String.fromCharCode(...r.codes));

describe("readings of a remote's text", () => {
  it("are none for a text without escapes", () => {
    expect(readings("plain text, no escapes")).toEqual([]);
    expect(readings("a lone & and a lone \\ and &unknown; and \\x and &#; and \\u12")).toEqual([]);
  });

  it("read JSON's short escapes and \\u escapes in either case", () => {
    expect(texts(String.raw`a\/b \"q\" \\ \n\t\r\b\f`)).toEqual(['a/b "q" \\ \n\t\r\b\f']);
    expect(texts(String.raw`\u0041\u002f\u002F\u00e9\ud83d\ude00`)).toEqual(["A//é😀"]);
  });

  it("read HTML numeric references, decimal and hex, with leading zeros, and the named ones of ASCII", () => {
    expect(texts("&#47;&#0047;&#x2F;&#x2f;&#X002f;&#128512;")).toEqual(["/////😀"]);
    expect(texts("&amp;&lt;&gt;&quot;&#39;&apos;&sol;&plus;&equals;&AMP;&DiacriticalGrave;")).toEqual([`&<>"''/+=&\``]);
  });

  it("leave what is no escape as written: out-of-range references, unknown names, a second level", () => {
    const huge = `&#${"9".repeat(400)};`;
    const left = `&#1114112; &#xD800; &nosuch; &#x; ${huge} &#47`;
    expect(texts(`${left} x&amp;#47;`)).toEqual([`${left} x&#47;`]);
  });

  it("are the JSON one, the HTML one and both layered when a text holds escapes of both kinds", () => {
    const [json, html, both] = texts(String.raw`it&#39;s\/a\u0026amp;`);
    expect([json, html, both]).toEqual([String.raw`it&#39;s/a&amp;`, String.raw`it's\/a\u0026amp;`, "it's/a&amp;"]);
  });

  it("say where each character read starts in the text as written", () => {
    const written = String.raw`ab\/c&#43;d&#128512;`;
    const [read] = readings(written).slice(-1);
    expect(String.fromCharCode(...read!.codes)).toBe("ab/c+d😀");
    expect([...read!.at]).toEqual([0, 1, 2, 4, 5, 10, 11, 11, 20]);
    // A stretch of the text read is the stretch of the text as written that holds it, escapes whole.
    expect(written.slice(read!.at[2], read!.at[5])).toBe(String.raw`\/c&#43;`);
  });
});
