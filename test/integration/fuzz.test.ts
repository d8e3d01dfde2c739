/**
 * Property-based fuzzing of the `parallel` body (docs/architecture.md#platform-rules: input never causes a
 * 5xx; docs/api.md#validation-order-and-errors: a rejected request starts nothing). Bodies mix well-formed
 * pieces with arbitrary JSON so both the happy path and every refusal are hit.
 */
import { reset } from "cloudflare:test";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, configure, toolConfig } from "../helpers";

beforeAll(() => configure(toolConfig({ limits: { max_wait_seconds: 2 } })));
afterAll(() => reset());

const smallArgs = fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 });
const toolName = fc.constantFrom(
  "echo",
  "text",
  "wait",
  "parallel",
  "response",
  "nope",
  "echo:run",
  ":x",
  "",
  "http_request",
);
const item = fc.oneof(
  fc.record({ tool_name: toolName, tool_args: smallArgs }),
  fc.record({ tool: toolName, args: smallArgs }),
  fc.record({
    type: fc.constant("function"),
    function: fc.record({ name: toolName, arguments: fc.oneof(fc.constant(""), fc.json({ maxDepth: 2 })) }),
  }),
  fc.record({ name: toolName, arguments: fc.oneof(smallArgs, fc.string({ maxLength: 10 })) }),
  fc.record({
    tool_name: fc.constant("wait"),
    tool_args: fc.record({
      seconds: fc.oneof(fc.double({ min: 0, max: 0.05, noNaN: true }), fc.string({ maxLength: 3 })),
    }),
  }),
  fc.jsonValue({ maxDepth: 2 }),
);
const body = fc.record(
  {
    tool_calls: fc.oneof(
      fc.array(item, { maxLength: 10 }),
      fc.constant(null),
      fc.string({ maxLength: 20 }),
      fc.jsonValue({ maxDepth: 2 }),
    ),
    calls: fc.array(item, { maxLength: 3 }),
    job_ids: fc.oneof(
      fc.string({ maxLength: 12 }),
      fc.array(fc.jsonValue({ maxDepth: 1 }), { maxLength: 4 }),
      fc.jsonValue({ maxDepth: 1 }),
    ),
    action: fc.oneof(
      fc.constantFrom("start", "background", "await", "wait", "collect", "cancel", "other"),
      fc.jsonValue({ maxDepth: 1 }),
    ),
    wait: fc.oneof(fc.boolean(), fc.constantFrom("yes", "off", "maybe", ""), fc.jsonValue({ maxDepth: 1 })),
    timeout: fc.oneof(
      fc.integer({ min: -5, max: 3 }),
      fc.constantFrom("1", "x", "", "2.5"),
      fc.jsonValue({ maxDepth: 1 }),
    ),
    job_timeout: fc.oneof(fc.integer({ min: -5, max: 5000 }), fc.jsonValue({ maxDepth: 1 })),
    notify: fc.jsonValue({ maxDepth: 1 }),
  },
  { requiredKeys: [] },
);
const validItem = fc.oneof(
  fc.record({ tool_name: fc.constantFrom("echo", "text"), tool_args: smallArgs }),
  fc.record({
    type: fc.constant("function"),
    function: fc.record({ name: fc.constant("echo"), arguments: fc.constant("{}") }),
  }),
  fc.record({
    tool_name: fc.constant("wait"),
    tool_args: fc.record({ seconds: fc.double({ min: 0.001, max: 0.05, noNaN: true }) }),
  }),
);
const validBody = fc.record(
  {
    tool_calls: fc.array(validItem, { minLength: 1, maxLength: 8 }),
    wait: fc.boolean(),
    timeout: fc.integer({ min: 1, max: 2 }),
  },
  { requiredKeys: ["tool_calls"] },
);
const anyBody = fc.oneof(
  { weight: 3, arbitrary: validBody.map((b) => JSON.stringify(b)) },
  { weight: 6, arbitrary: body.map((b) => JSON.stringify(b)) },
  { weight: 1, arbitrary: fc.json({ maxDepth: 3 }) },
  { weight: 1, arbitrary: fc.string({ maxLength: 40 }) },
);

describe("the parallel endpoint under arbitrary input", () => {
  it("never answers 5xx, and a refused request creates nothing", async () => {
    let run = 0;
    const statuses = new Set<number>();
    await fc.assert(
      fc.asyncProperty(anyBody, async (rawBody) => {
        const chat = `fz-${run++}`;
        const res = await api(`/v1/chats/${chat}/parallel`, { rawBody });
        statuses.add(res.status);
        expect(res.status).toBeLessThan(500);
        const answer = (await res.json()) as { status: string; error?: { code: string; message: string } };
        if (res.status >= 400) {
          expect(answer.status).toBe("error");
          expect(answer.error?.message.length).toBeGreaterThan(0);
          expect((await api(`/v1/chats/${chat}`)).status).toBe(404);
        }
      }),
      { numRuns: 150, seed: 20261129 },
    );
    // The generator must reach both outcomes, or the property proves little.
    expect([...statuses].some((s) => s === 200)).toBe(true);
    expect([...statuses].some((s) => s === 400)).toBe(true);
  });
});
