import { describe, expect, it } from "vitest";
import { STORED_ROW_BYTES } from "../../src/core/storage/row-bounds";
import {
  byteSize,
  contentBudget,
  decodedBytes,
  placeholder,
  resultText,
  storedContent,
  type ContentPart,
} from "../../src/core/tools/mcp-content";

const bytes = (text: string) => new TextEncoder().encode(text).length;
const base64Of = (n: number) => btoa("x".repeat(n));

describe("sizes in placeholders", () => {
  it("are bytes below 1 KB, one decimal under ten units, whole units above", () => {
    expect([0, 1023, 1024, 1536, 4033, 12 * 1024, 10 * 1024 - 1].map(byteSize)).toEqual([
      "0 B",
      "1023 B",
      "1 KB",
      "1.5 KB",
      "3.9 KB",
      "12 KB",
      "10 KB",
    ]);
    expect([1024 * 1024 - 1, 1.5 * 1024 * 1024, 3 * 1024 ** 3].map(byteSize)).toEqual(["1 MB", "1.5 MB", "3 GB"]);
  });

  it("are the decoded size of base64, padding and line breaks not counted", () => {
    expect(["", "AAAA", "AAA=", "AA==", "AAAA\nAAAA"].map(decodedBytes)).toEqual([0, 3, 2, 1, 6]);
    expect(decodedBytes(base64Of(12 * 1024))).toBe(12 * 1024);
  });
});

describe("the result text of an MCP call", () => {
  it("joins text parts by lines and shows an image as its type, MIME type and size", () => {
    const content = [
      { type: "text", text: "Here's the image you requested:" },
      { type: "image", data: base64Of(12 * 1024), mimeType: "image/png" },
      { type: "text", text: "The image above is the MCP logo." },
    ];
    expect(resultText({ content })).toBe(
      "Here's the image you requested:\n[image image/png, 12 KB]\nThe image above is the MCP logo.",
    );
  });

  it("shows audio like an image, and resources and resource links by their URI", () => {
    const content = [
      { type: "audio", data: base64Of(3000), mimeType: "audio/wav" },
      {
        type: "resource",
        resource: { uri: "demo://resource/static/document/1", mimeType: "text/plain", text: "the whole document" },
      },
      { type: "resource_link", uri: "demo://resource/2", name: "Blob Resource 2" },
    ];
    expect(resultText({ content })).toBe(
      "[audio audio/wav, 2.9 KB]\n[resource demo://resource/static/document/1]\n[resource demo://resource/2]",
    );
  });

  it("gives parts it does not know, or that lack their details, a short placeholder with their type", () => {
    const parts: ContentPart[] = [
      { type: "video", data: "AAAA" },
      { type: "image" },
      { type: "resource", resource: {} },
      { type: "x".repeat(200) },
      { type: "" },
    ];
    expect(parts.map(placeholder)).toEqual(["[video]", "[image]", "[resource]", `[${"x".repeat(40)}]`, "[unknown]"]);
  });

  it("uses structuredContent only when no part is text, ahead of any placeholders", () => {
    expect(resultText({ content: [{ type: "text", text: '{"t":1}' }], structuredContent: { t: 1, extra: true } })).toBe(
      '{"t":1}',
    );
    expect(resultText({ content: [], structuredContent: { t: 1 } })).toBe('{"t":1}');
    expect(
      resultText({ content: [{ type: "image", data: "AAAA", mimeType: "image/png" }], structuredContent: { t: 1 } }),
    ).toBe('{"t":1}\n[image image/png, 3 B]');
  });

  it("reads an older server's toolResult, and is empty when there is nothing", () => {
    expect(resultText({ toolResult: { ok: true } })).toBe('{"ok":true}');
    expect(resultText({ toolResult: "plain" })).toBe("plain");
    expect(resultText({})).toBe("");
    expect(resultText({ content: [{ type: "text", text: "" }] })).toBe("");
  });
});

describe("the content parts a job keeps", () => {
  const image = { type: "image", data: base64Of(3000), mimeType: "image/png", annotations: { audience: ["user"] } };

  it("are the parts as sent while they fit", () => {
    const parts = [{ type: "text", text: "hello" }, image];
    expect(storedContent(parts, 10_000)).toBe(JSON.stringify(parts));
  });

  it("past the bound keep what fits whole, cut a text part, and keep a payload too big as a stub", () => {
    const parts = [{ type: "text", text: "short" }, image, { type: "text", text: "y".repeat(5000) }];
    const max = 2000;
    const stored = storedContent(parts, max);
    expect(bytes(stored)).toBeLessThanOrEqual(max);
    const kept = JSON.parse(stored) as ContentPart[];
    expect(kept[0]).toEqual(parts[0]);
    expect(kept[1]).toEqual({ type: "image", mimeType: "image/png", truncated: true });
    expect(kept[2]).toMatchObject({ type: "text", truncated: true });
    expect((kept[2]!.text as string).length).toBeGreaterThan(1500);
    expect("y".repeat(5000).startsWith(kept[2]!.text as string)).toBe(true);
  });

  it("stay within the bound when JSON escaping doubles a text, and never cut a character in half", () => {
    for (const text of ['"'.repeat(3000), "é".repeat(3000), "\u0001".repeat(3000), "😀".repeat(3000)]) {
      const stored = storedContent([{ type: "text", text }], 1000);
      expect(bytes(stored)).toBeLessThanOrEqual(1000);
      const [part] = JSON.parse(stored) as ContentPart[];
      expect(text.startsWith(part!.text as string)).toBe(true);
      expect((part!.text as string).length).toBeGreaterThan(0);
    }
  });

  it("leave out parts for which not even a stub finds room", () => {
    const stored = storedContent([{ type: "text", text: "a".repeat(30) }, image, image], 60);
    expect(bytes(stored)).toBeLessThanOrEqual(60);
    expect((JSON.parse(stored) as ContentPart[]).map((p) => p.type)).toEqual(["text"]);
    expect(storedContent([image], 2)).toBe("[]");
  });

  it("share the row with the stored result and the arguments: together at most STORED_ROW_BYTES, each at most max_stored_result_bytes", () => {
    expect(contentBudget([null], 1_048_576)).toBe(1_048_576);
    expect(contentBudget(["x".repeat(1_500_000)], 1_048_576)).toBe(STORED_ROW_BYTES - 1_500_000);
    expect(contentBudget(["x".repeat(1_000_000), "a".repeat(250_000), null], 1_048_576)).toBe(
      STORED_ROW_BYTES - 1_250_000,
    );
    expect(contentBudget(["é".repeat(1_000_000)], 2_000_000)).toBe(2); // room for an empty list, nothing more
  });
});
