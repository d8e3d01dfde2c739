import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ApiError } from "../../src/core/http/errors";
import { canonicalJson, jsonDepth, MAX_JSON_DEPTH, readJsonBody } from "../../src/core/http/json-body";

const nested = (depth: number) => "[".repeat(depth) + "]".repeat(depth);

/** The plain character loop: what the fast scan must agree with on every JSON text. */
function depthByLoop(text: string): number {
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (inString) {
      if (ch === "\\") i++;
      else if (ch === '"') inString = false;
    } else if (ch === '"') inString = true;
    else if (ch === "{" || ch === "[") max = Math.max(max, ++depth);
    else if (ch === "}" || ch === "]") depth--;
  }
  return max;
}

/** Canonical JSON by the recursive definition: sorted keys, `undefined` written as null. */
function canonicalByWalk(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalByWalk).join(",")}]`;
  if (value && typeof value === "object") {
    const obj = value as Record<string, unknown>;
    const keys = Object.keys(obj).sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalByWalk(obj[k])}`).join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

/** Parsed JSON with the keys that trip naive copies: integer-like, `__proto__`, escapes. */
const jsonValue = fc
  .letrec((tie) => ({
    value: fc.oneof(
      { depthSize: "small" },
      fc.string({ unit: "binary" }),
      fc.double({ noNaN: true, noDefaultInfinity: true }),
      fc.boolean(),
      fc.constant(null),
      tie("array"),
      tie("object"),
    ),
    array: fc.array(tie("value"), { maxLength: 4 }),
    object: fc.dictionary(
      fc.oneof(fc.string(), fc.constantFrom("__proto__", "0", "10", "9", "01", 'a"b', "constructor")),
      tie("value"),
      { maxKeys: 4 },
    ),
  }))
  .value.map((v) => JSON.parse(JSON.stringify(v)) as unknown);

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

  it("agrees with a character-by-character scan on any JSON text", () => {
    fc.assert(
      fc.property(jsonValue, (value) => {
        const text = JSON.stringify(value);
        expect(jsonDepth(text)).toBe(depthByLoop(text));
      }),
      { numRuns: 500 },
    );
  });

  it("stops at an unterminated string without counting past it", () => {
    expect(jsonDepth('[["abc')).toBe(2);
    expect(jsonDepth('["a\\')).toBe(1);
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
    expect(await readJsonBody(post('{"a":2}', { "content-type": "application/x-www-form-urlencoded" }), 1000)).toEqual({
      a: 2,
    });
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
    expect(canonicalJson({ b: 1, a: { d: [{ z: 1, y: 2 }], c: null } })).toBe(
      '{"a":{"c":null,"d":[{"y":2,"z":1}]},"b":1}',
    );
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
    expect(canonicalJson('a"b')).toBe('"a\\"b"');
    expect(canonicalJson(null)).toBe("null");
    expect(canonicalJson(true)).toBe("true");
    expect(canonicalJson(1.5)).toBe("1.5");
    expect(canonicalJson({ 'k"': "v" })).toBe('{"k\\"":"v"}');
  });

  it("writes the recursive definition's text for any parsed JSON", () => {
    fc.assert(
      fc.property(jsonValue, (value) => {
        expect(canonicalJson(value)).toBe(canonicalByWalk(value));
      }),
      { numRuns: 500 },
    );
  });

  it("keeps integer-like keys in sorted order, not V8's", () => {
    expect(canonicalJson(JSON.parse('{"b":1,"10":2,"9":3}'))).toBe('{"10":2,"9":3,"b":1}');
  });

  it("keeps an own __proto__ key, so two bodies differing only there differ", () => {
    const one = JSON.parse('{"__proto__":{"x":1},"a":2}') as unknown;
    const two = JSON.parse('{"__proto__":{"x":2},"a":2}') as unknown;
    expect(canonicalJson(one)).toBe('{"__proto__":{"x":1},"a":2}');
    expect(canonicalJson(one)).not.toBe(canonicalJson(two));
  });

  it("writes an undefined value as null, as fingerprints stored before were written", () => {
    expect(canonicalJson({ route: "parallel", agent: undefined })).toBe('{"agent":null,"route":"parallel"}');
    expect(canonicalJson(undefined)).toBe("null");
  });

  it("distinguishes a string from the number it spells", () => {
    expect(canonicalJson({ a: "1" })).not.toBe(canonicalJson({ a: 1 }));
  });
});
