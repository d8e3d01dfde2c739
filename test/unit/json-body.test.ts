import { describe, expect, it } from "vitest";
import { ApiError } from "../../src/http/errors";
import { canonicalJson, jsonDepth, MAX_JSON_DEPTH, readJsonBody } from "../../src/http/json-body";

const nested = (depth: number) => "[".repeat(depth) + "]".repeat(depth);

async function apiError(p: Promise<unknown>): Promise<ApiError> {
  try {
    await p;
  } catch (e) {
    if (e instanceof ApiError) return e;
    throw e;
  }
  throw new Error("expected an ApiError");
}

const post = (body: string, headers: Record<string, string> = {}) =>
  new Request("https://fanout.test/v1/chats/c/parallel", { method: "POST", body, headers });

describe("jsonDepth", () => {
  it("counts scalars as depth 0", () => {
    expect(jsonDepth("1")).toBe(0);
    expect(jsonDepth('"x"')).toBe(0);
    expect(jsonDepth("")).toBe(0);
  });

  it("counts each level of objects and arrays", () => {
    expect(jsonDepth("{}")).toBe(1);
    expect(jsonDepth("[]")).toBe(1);
    expect(jsonDepth('{"a":[{"b":1}]}')).toBe(3);
    expect(jsonDepth(nested(40))).toBe(40);
  });

  it("reports the deepest branch, not the sum of siblings", () => {
    expect(jsonDepth("[[],[],[[]]]")).toBe(3);
    expect(jsonDepth('{"a":{},"b":{},"c":{}}')).toBe(2);
  });

  it("ignores brackets inside strings", () => {
    expect(jsonDepth('{"a":"[[[{{{"}')).toBe(1);
    expect(jsonDepth('["]]]", ["x"]]')).toBe(2);
  });

  it("handles escaped quotes and backslashes inside strings", () => {
    expect(jsonDepth('{"a":"\\"[[["}')).toBe(1);
    expect(jsonDepth('["\\\\", [1]]')).toBe(2);
    expect(jsonDepth('{"k\\"{":"v"}')).toBe(1);
  });
});

describe("readJsonBody", () => {
  it("parses JSON whatever the Content-Type", async () => {
    expect(await readJsonBody(post('{"a":1}', { "content-type": "text/plain" }), 1000)).toEqual({ a: 1 });
    expect(await readJsonBody(post('{"a":2}', { "content-type": "application/x-www-form-urlencoded" }), 1000)).toEqual({ a: 2 });
  });

  it("accepts nesting of exactly 32 levels", async () => {
    expect(MAX_JSON_DEPTH).toBe(32);
    await expect(readJsonBody(post(nested(32)), 10_000)).resolves.toBeDefined();
  });

  it("refuses nesting deeper than 32 levels with 400", async () => {
    const e = await apiError(readJsonBody(post(nested(33)), 10_000));
    expect(e.status).toBe(400);
    expect(e.code).toBe("invalid_json");
  });

  it("refuses a body that is not JSON with the contract message", async () => {
    const e = await apiError(readJsonBody(post("{not json"), 1000));
    expect(e.status).toBe(400);
    expect(e.code).toBe("invalid_json");
    expect(e.message).toBe("Request body must be a JSON object.");
  });

  it("refuses a body over max_body_bytes with 413", async () => {
    const e = await apiError(readJsonBody(post(JSON.stringify({ a: "x".repeat(200) })), 100));
    expect(e.status).toBe(413);
    expect(e.code).toBe("payload_too_large");
    expect(e.message).toBe("Request body exceeds 100 bytes.");
  });

  it("counts bytes, not characters, against max_body_bytes", async () => {
    const body = JSON.stringify({ a: "é".repeat(40) }); // 48 characters, 88 bytes
    const e = await apiError(readJsonBody(post(body), 60));
    expect(e.status).toBe(413);
    expect(await readJsonBody(post(body), 88)).toEqual({ a: "é".repeat(40) });
  });

  it("accepts a body of exactly max_body_bytes", async () => {
    const body = '{"a":"xxxx"}';
    expect(await readJsonBody(post(body), body.length)).toEqual({ a: "xxxx" });
  });
});

describe("canonicalJson", () => {
  it("sorts object keys at every level", () => {
    expect(canonicalJson({ b: 1, a: { d: [{ z: 1, y: 2 }], c: null } })).toBe('{"a":{"c":null,"d":[{"y":2,"z":1}]},"b":1}');
  });

  it("gives the same text for the same data written in another key order", () => {
    const one = JSON.parse('{"tool_calls":[{"tool_name":"echo","tool_args":{"x":1,"y":2}}],"wait":false}') as unknown;
    const two = JSON.parse('{"wait":false,"tool_calls":[{"tool_args":{"y":2,"x":1},"tool_name":"echo"}]}') as unknown;
    expect(canonicalJson(one)).toBe(canonicalJson(two));
  });

  it("keeps array order significant", () => {
    expect(canonicalJson([1, 2])).not.toBe(canonicalJson([2, 1]));
  });

  it("writes scalars and strings as JSON", () => {
    expect(canonicalJson("a\"b")).toBe('"a\\"b"');
    expect(canonicalJson(null)).toBe("null");
    expect(canonicalJson(true)).toBe("true");
    expect(canonicalJson(1.5)).toBe("1.5");
    expect(canonicalJson({ 'k"': "v" })).toBe('{"k\\"":"v"}');
  });

  it("distinguishes a string from the number it spells", () => {
    expect(canonicalJson({ a: "1" })).not.toBe(canonicalJson({ a: 1 }));
  });
});
