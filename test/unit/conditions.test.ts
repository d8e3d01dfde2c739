/**
 * Conditions (docs/api.md#conditions), pure: what a `when` may say, what it costs, and how a call
 * meets it. An evaluation that fails, or that the call's budget cannot pay for, counts as true.
 */
import { describe, expect, it } from "vitest";
import {
  checkCondition,
  conditionHolds,
  EVALUATION_BUDGET,
  MAX_CONDITION_COST,
  type ConditionInput,
} from "../../src/core/conditions/condition";
import { approvalRuleFor } from "../../src/core/approvals/approval";
import { flowHolds } from "../../src/core/flow/rules";

const input = (args: Record<string, unknown>, more: Partial<ConditionInput> = {}): ConditionInput => ({
  args,
  metadata: null,
  agent: "default",
  tool: "pay",
  ...more,
});
const problem = (expression: string) => {
  const checked = checkCondition(expression);
  return checked.ok ? null : checked.problem;
};

describe("checking a condition", () => {
  it("accepts comparisons, string methods, macros over an argument's elements, and `has`", () => {
    for (const ok of [
      "args.amount > 100 || !args.to.endsWith('@ourco.com')",
      "has(args.cc) && args.cc.size() > 3",
      "args.items.exists(i, i.price * i.qty > 1000.0)",
      "args.lines.all(l, l.account.startsWith('ops-'))",
      "metadata.tier in ['free', 'trial'] && agent != 'admin'",
      "cel.bind(to, args.to.lowerAscii(), to.endsWith('@ourco.com') || to.endsWith('@ourco.de'))",
      "args.orders.exists(o, o.lines.exists(l, l.amount > 100))",
    ]) {
      expect(problem(ok), ok).toBeNull();
    }
  });

  it("refuses a syntax error, a type error and a result that is not true or false, saying where", () => {
    expect(problem("args.amount >")).toBe("Unexpected token: EOF at character 14");
    expect(problem("tool > 5")).toBe("no such overload: string > int at character 1");
    expect(problem("amount > 5")).toBe("Unknown variable: amount at character 1");
    expect(problem("args.amount + 1")).toBe("must be true or false, but gives int");
    expect(problem("x".repeat(1001))).toMatch(/1001 characters long; at most 1000/);
  });

  it("refuses what cannot be bounded: a regular expression, a macro reading the input per element, a cost past the cap", () => {
    expect(problem("args.to.matches('^(a+)+$')")).toMatch(
      /^`matches` is not available in conditions.* at character 1$/,
    );
    expect(problem("args.ids.exists(x, x in args.ids)")).toMatch(/^`args` inside all\/exists.* at character 25$/);
    // A body may not read a name bound outside it either: it is as large as the input.
    expect(problem("cel.bind(s, args.s, args.l.exists(x, s.contains(x)))")).toMatch(/^`s` inside all\/exists/);
    expect(problem("args.parts.join(args.sep).size() > 0")).toMatch(/literal separator/);
    // Each bind doubles the string: cost grows as 2^n.
    const doubling = Array.from({ length: 12 }, (_, i) => `cel.bind(v${i + 1}, v${i} + v${i}, `).join("");
    const expression = `cel.bind(v0, args.s, ${doubling}v12.contains('x')${")".repeat(13)}`;
    expect(problem(expression)).toMatch(new RegExp(`each byte of a call \\d+ times; at most ${MAX_CONDITION_COST}`));
  });
});

describe("meeting a condition", () => {
  const payments = "args.amount > 100 || !args.to.endsWith('@ourco.com')";

  it("is true or false as the expression says, with numbers from JSON comparing to literals of either kind", () => {
    expect(conditionHolds(payments, input({ amount: 150, to: "a@ourco.com" }))).toBe(true);
    expect(conditionHolds(payments, input({ amount: 50, to: "a@ourco.com" }))).toBe(false);
    expect(conditionHolds(payments, input({ amount: 50, to: "a@elsewhere.com" }))).toBe(true);
    expect(conditionHolds("args.n == 3 && args.x == 2.5", input({ n: 3, x: 2.5 }))).toBe(true);
    expect(conditionHolds("metadata.user == 'u7'", input({}, { metadata: { user: "u7" } }))).toBe(true);
    expect(conditionHolds("has(metadata.user)", input({}))).toBe(false);
  });

  it("is true where it cannot be evaluated: a missing field, a wrong type, a division by zero, a stored expression now invalid", () => {
    expect(conditionHolds(payments, input({ to: "a@ourco.com" }))).toBe(true);
    expect(conditionHolds("args.amount > 100", input({ amount: "lots" }))).toBe(true);
    expect(conditionHolds("args.n / 0 == 1", input({ n: 1 }))).toBe(true);
    expect(conditionHolds("args.to.matches('x')", input({ to: "y" }))).toBe(true);
    expect(conditionHolds("args.name", input({ name: "not a bool" }))).toBe(true);
    expect(conditionHolds(undefined, input({}))).toBe(true);
  });

  it("is not evaluated past the call's budget, shared by every rule the call meets: the rule then applies", () => {
    const big = input({ amount: 1, to: "x".repeat(EVALUATION_BUDGET / 4) });
    // Affordable once (cost about 14 × 1 MB would not be): refused outright, so true although false.
    expect(conditionHolds(payments, big)).toBe(true);
    const medium = input({ amount: 1, to: `${"x".repeat(EVALUATION_BUDGET / 40)}@ourco.com` });
    const { cost } = checkCondition(payments) as { ok: true; cost: number };
    const affordable = Math.floor(EVALUATION_BUDGET / (cost * JSON.stringify({ ...medium, metadata: {} }).length));
    expect(affordable).toBeGreaterThan(0);
    const answers = Array.from({ length: affordable + 1 }, () => conditionHolds(payments, medium));
    expect(answers.slice(0, affordable).every((a) => a === false)).toBe(true);
    expect(answers[affordable]).toBe(true);
    // Another call has a budget of its own.
    expect(conditionHolds(payments, { ...medium })).toBe(false);
  });
});

describe("rules with a condition", () => {
  it("put a call under the first approval rule whose name, agent and condition all match", () => {
    const rules = [
      { tools: ["pay"], when: "args.amount > 1000", timeout_seconds: 60 },
      { tools: ["pay"], when: "args.amount > 100", timeout_seconds: 600 },
    ];
    expect(approvalRuleFor(rules, input({ amount: 5000 }))?.timeout_seconds).toBe(60);
    expect(approvalRuleFor(rules, input({ amount: 500 }))?.timeout_seconds).toBe(600);
    expect(approvalRuleFor(rules, input({ amount: 5 }))).toBeNull();
  });

  it("hold a call under the flow rules whose condition is true for it", () => {
    const rules = [
      {
        name: "big",
        tools: ["pay"],
        when: "args.amount > 100",
        concurrency: 1,
        on_limit: "queue" as const,
        max_queued: 10,
      },
      { name: "all", tools: ["pay"], concurrency: 5, on_limit: "queue" as const, max_queued: 10 },
    ];
    expect(flowHolds(rules, input({ amount: 500 })).map((h) => h.rule)).toEqual(["all", "big"]);
    expect(flowHolds(rules, input({ amount: 5 })).map((h) => h.rule)).toEqual(["all"]);
  });
});
