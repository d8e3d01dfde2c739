/**
 * Hostile configuration documents from a valid key (docs/api.md#configuration: bounds, egress rules, linear globs and
 * patterns), sent the way a deployed worker sees them (ALLOW_PRIVATE_EGRESS=false): never a 5xx, and
 * a refused document stores nothing. The same documents drive `npm run drill`'s larger run.
 */
import { createExecutionContext, env, reset } from "cloudflare:test";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import worker from "../../src/index";
import { hostileConfig } from "../../bench/lib/hostile-config.mjs";
import { defaultConfig } from "../../src/core/config/schema";
import { TEST_KEYS } from "../setup/bindings";

afterAll(() => reset());

const deployed = (method: string, body?: unknown) =>
  worker.fetch(
    new Request("https://fanout.test/v1/config", {
      method,
      headers: {
        authorization: `Bearer ${TEST_KEYS.globex}`,
        "content-type": method === "PATCH" ? "application/merge-patch+json" : "application/json",
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    }),
    { ...env, ALLOW_PRIVATE_EGRESS: "false" } as Env,
    createExecutionContext(),
  );

const LIMIT_NAMES = Object.keys(defaultConfig().limits);
const number = fc.oneof(
  fc.constantFrom(1e308, -1e308, Number.MAX_SAFE_INTEGER, 2 ** 53 + 2, 1e21, 2_592_001, 31_536_001, 4_194_305, -0, 0.5),
  fc.double({ noNaN: true }),
  fc.integer(),
);
/** A limit, a tool's timeout or a glob list pushed past its bound, mixed with whatever fast-check finds. */
const randomHostile = fc.oneof(
  fc.record({ limits: fc.dictionary(fc.constantFrom(...LIMIT_NAMES), number, { minKeys: 1, maxKeys: 3 }) }),
  fc.record({
    tools: fc.tuple(
      fc.record({ name: fc.constant("t"), url: fc.constant("https://tools.example/t"), timeout_seconds: number }),
    ),
  }),
  fc.record({
    agents: fc.record({ a: fc.record({ tools: fc.array(fc.string({ maxLength: 140 }), { maxLength: 70 }) }) }),
  }),
);

describe("hostile configurations", () => {
  it("built to break a bound are refused with a 400, random ones never answer 5xx, and a refused one stores nothing", async () => {
    const stored = async () => (await deployed("GET")).text();
    let refused = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.nat({ max: 1999 }).map((i) => {
            const { method, body, refuse } = hostileConfig(i);
            return { method, body, mustRefuse: refuse };
          }),
          fc.record({ method: fc.constantFrom("PUT", "PATCH"), body: randomHostile, mustRefuse: fc.constant(false) }),
        ),
        async ({ method, body, mustRefuse }) => {
          const before = await stored();
          const res = await deployed(method, body);
          expect(res.status).toBeLessThan(500);
          if (mustRefuse) expect(res.status, JSON.stringify(body).slice(0, 300)).toBe(400);
          if (res.status !== 200) {
            refused++;
            expect(await stored()).toBe(before);
          }
        },
      ),
      { numRuns: 300 },
    );
    expect(refused).toBeGreaterThan(200);
  });
});
