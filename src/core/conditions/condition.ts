/**
 * A rule's `when` (docs/api.md#conditions): a CEL expression over the call (`args`, `metadata`,
 * `agent`, `tool`) that narrows an approval or flow rule to the calls it is true for
 * (`args.amount > 100 || !args.to.endsWith('@ourco.com')`). Checked when the configuration is
 * written (syntax, types, and a cost that grows at most linearly with the call), evaluated per call.
 * Where it cannot be evaluated (a missing field, a type mismatch, an input too large for its cost)
 * it counts as true: the rule applies, so a person is asked rather than a payment made. A call's
 * `ConditionInput` is one object for all the rules it meets: they share one budget.
 */
import { Environment, type ASTNode } from "@marcbachmann/cel-js";
import { estimateCost } from "./cost";

/** The longest `when` a rule may have. */
export const MAX_CONDITION_CHARS = 1000;

/**
 * The most an expression's estimate may say it handles each byte of the call (cost.ts). An
 * expression of ordinary comparisons is a few; ten string methods chained on `+` a few hundred.
 */
export const MAX_CONDITION_COST = 1000;

/**
 * The work a call's conditions may do together, in bytes handled (cost × the input's size): at
 * most about 15 ms of CPU for the worst expression measured (docs/api.md#conditions). A condition
 * past it is not evaluated and counts as true.
 */
export const EVALUATION_BUDGET = 4_000_000;

/** The names a condition sees. */
export const CONDITION_INPUTS = ["args", "metadata", "agent", "tool"] as const;

export interface ConditionInput {
  args: Record<string, unknown>;
  metadata: Record<string, unknown> | null;
  agent: string;
  tool: string;
}

const environment = new Environment({
  // Structural limits, so a crafted expression cannot make the parser itself work hard.
  limits: { maxAstNodes: 256, maxDepth: 32, maxListElements: 100, maxMapEntries: 100, maxCallArguments: 8 },
  // Lists of numbers from a JSON argument compare with literals of either kind.
  homogeneousAggregateLiterals: false,
})
  .registerVariable("args", "map", { description: "The call's arguments" })
  .registerVariable("metadata", "map", { description: "The batch's request metadata; {} without any" })
  .registerVariable("agent", "string", { description: "The calling agent's profile" })
  .registerVariable("tool", "string", { description: "The name the call runs as" });

type Evaluate = ((context: Record<string, unknown>) => unknown) & { ast: ASTNode };

interface Compiled {
  evaluate: Evaluate;
  cost: number;
}

export type ConditionCheck = { ok: true; cost: number } | { ok: false; problem: string };

/** Where in the expression, as a person counts: the first character is 1. */
const at = (position: number | undefined) => (position === undefined ? "" : ` at character ${position + 1}`);

/** Each distinct expression is parsed once per isolate; a tenant has at most 64 of them. */
const compiled = new Map<string, Compiled>();
const COMPILED_KEPT = 512;

function compile(expression: string): { ok: true; compiled: Compiled } | { ok: false; problem: string } {
  const known = compiled.get(expression);
  if (known) return { ok: true, compiled: known };
  if (expression.length > MAX_CONDITION_CHARS) {
    return { ok: false, problem: `is ${expression.length} characters long; at most ${MAX_CONDITION_CHARS}` };
  }
  let evaluate: Evaluate;
  try {
    evaluate = environment.parse(expression) as unknown as Evaluate;
  } catch (e) {
    const error = e as { summary?: string; message: string; node?: { pos?: number } };
    return { ok: false, problem: `${error.summary ?? error.message}${at(error.node?.pos)}` };
  }
  const checked = (evaluate as unknown as { check(): { valid: boolean; type?: string; error?: Error } }).check();
  if (!checked.valid) {
    const error = checked.error as { summary?: string; message: string; node?: { pos?: number } } | undefined;
    return { ok: false, problem: `${error?.summary ?? error?.message ?? "is not valid"}${at(error?.node?.pos)}` };
  }
  if (checked.type !== "bool" && checked.type !== "dyn") {
    return { ok: false, problem: `must be true or false, but gives ${checked.type}` };
  }
  const cost = estimateCost(evaluate.ast, CONDITION_INPUTS);
  if (!cost.ok) return { ok: false, problem: `${cost.message}${at(cost.at)}` };
  if (cost.cost > MAX_CONDITION_COST) {
    return {
      ok: false,
      problem: `may handle each byte of a call ${cost.cost} times; at most ${MAX_CONDITION_COST} (use fewer string operations)`,
    };
  }
  const entry = { evaluate, cost: cost.cost };
  if (compiled.size >= COMPILED_KEPT) compiled.delete(compiled.keys().next().value!);
  compiled.set(expression, entry);
  return { ok: true, compiled: entry };
}

/**
 * What a call's conditions have spent of its budget: every rule it meets evaluates against the same
 * input, and together they do at most `EVALUATION_BUDGET` of work, however many rules have a `when`.
 */
const spending = new WeakMap<ConditionInput, { bytes: number; spent: number }>();

/** Whether the call's budget has room for one more evaluation of this cost; if so it is spent. */
function afford(input: ConditionInput, context: object, cost: number): boolean {
  let account = spending.get(input);
  if (!account) {
    account = { bytes: JSON.stringify(context).length, spent: 0 };
    spending.set(input, account);
  }
  const work = cost * account.bytes;
  if (account.spent + work > EVALUATION_BUDGET) return false;
  account.spent += work;
  return true;
}

/** Whether `expression` may be stored as a rule's `when`, and if not, what to fix and where. */
export function checkCondition(expression: string): ConditionCheck {
  const result = compile(expression);
  return result.ok ? { ok: true, cost: result.compiled.cost } : { ok: false, problem: result.problem };
}

/**
 * Whether a rule with this `when` applies to the call. True without a condition, and true where
 * the condition cannot be evaluated: a missing field, a type mismatch, an input too large for its
 * cost, or an expression no longer valid (stored before a check it would now fail).
 */
export function conditionHolds(expression: string | undefined, input: ConditionInput): boolean {
  if (expression === undefined) return true;
  const result = compile(expression);
  if (!result.ok) return true;
  const context = { args: input.args, metadata: input.metadata ?? {}, agent: input.agent, tool: input.tool };
  if (!afford(input, context, result.compiled.cost)) return true;
  try {
    return result.compiled.evaluate(context) !== false;
  } catch {
    return true;
  }
}
