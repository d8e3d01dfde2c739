/**
 * How much work a rule's `when` may do, read from its syntax tree before it is stored
 * (docs/api.md#conditions). CEL has no loops or recursion, but it still has ways to do work that
 * grows faster than the call it looks at: a macro whose body walks the whole input again for every
 * element, `cel.bind` doubling a string thirty times, a backtracking regular expression. A Worker
 * cannot stop a computation that has started (its clock stands still while code runs), so the bound
 * has to be known before evaluating.
 *
 * The estimate is linear in the size of the input (the call's arguments and the batch's metadata,
 * as JSON): `cost` is how many times the evaluation may touch each byte of it, `size` how large a
 * value may be, both in multiples of that size. Literals are short (the expression is at most
 * 1,000 characters) and count as nothing. What cannot be bounded linearly is refused with where it is.
 */
import type { ASTNode } from "@marcbachmann/cel-js";

/** The macros that run their body once per element of a list or key of a map. */
const COMPREHENSIONS = new Set(["all", "exists", "exists_one", "map", "filter"]);
const COMPARISONS = new Set(["==", "!=", "<", "<=", ">", ">=", "in"]);
const NUMERIC = new Set(["-", "*", "/", "%"]);

interface Estimate {
  /** How large the value may be, in multiples of the input's size. */
  size: number;
  /** How often each byte of the input may be handled to compute it. */
  cost: number;
}

export type CostEstimate = { ok: true; cost: number } | { ok: false; message: string; at: number };

/** Raised inside the walk, caught by `estimateCost`: the first construct that cannot be bounded. */
class Unbounded extends Error {
  constructor(
    message: string,
    readonly at: number,
  ) {
    super(message);
  }
}

/**
 * Where an identifier comes from: the input (`args`, `metadata`, `tool`, `agent`, and `cel.bind`
 * names bound outside the current macro), or the macro body's own variable and what is bound from it.
 */
interface Scope {
  sizes: Map<string, number>;
  /** Names a macro body must not use: they are as large as the input, and the body runs per element. */
  outer: Set<string> | null;
}

const NOTHING: Estimate = { size: 0, cost: 0 };
const sum = (parts: Estimate[]) => parts.reduce((a, b) => ({ size: a.size + b.size, cost: a.cost + b.cost }), NOTHING);

function estimate(node: ASTNode, scope: Scope): Estimate {
  switch (node.op) {
    case "value":
      return NOTHING;
    case "id": {
      if (scope.outer?.has(node.args)) {
        throw new Unbounded(
          `\`${node.args}\` inside all/exists/exists_one/map/filter would be read once per element (compare each element with literals instead)`,
          node.pos,
        );
      }
      return { size: scope.sizes.get(node.args) ?? 1, cost: 0 };
    }
    case ".":
    case ".?":
      return estimate(node.args[0], scope);
    case "[]":
    case "[?]": {
      const [of, index] = node.args.map((n) => estimate(n, scope)) as [Estimate, Estimate];
      return { size: of.size, cost: of.cost + index.cost + index.size };
    }
    case "!_":
    case "-_": {
      const of = estimate(node.args, scope);
      return { size: 0, cost: of.cost + of.size };
    }
    case "&&":
    case "||":
      return { size: 0, cost: sum(node.args.map((n) => estimate(n, scope))).cost };
    case "?:": {
      const [test, then, otherwise] = node.args.map((n) => estimate(n, scope)) as [Estimate, Estimate, Estimate];
      return { size: Math.max(then.size, otherwise.size), cost: test.cost + then.cost + otherwise.cost };
    }
    case "list":
      return sum(node.args.map((n) => estimate(n, scope)));
    case "map":
      return sum(node.args.flat().map((n) => estimate(n, scope)));
    case "call":
      return callEstimate(node.args[0], node.args[1], scope);
    case "rcall":
      return methodEstimate(node, scope);
    default: {
      // The binary operators: `+` copies both sides; comparisons read both; arithmetic is on numbers.
      const both = sum(node.args.map((n) => estimate(n, scope)));
      if (node.op === "+") return { size: both.size, cost: both.cost + both.size };
      if (COMPARISONS.has(node.op)) return { size: 0, cost: both.cost + both.size };
      if (NUMERIC.has(node.op)) return { size: 0, cost: both.cost };
      throw new Unbounded(`the operator \`${node.op}\` is not supported in conditions`, node.pos);
    }
  }
}

function callEstimate(name: string, args: ASTNode[], scope: Scope): Estimate {
  // `has(x.f)` asks whether a field is there; it reads no value.
  if (name === "has") return NOTHING;
  const of = sum(args.map((n) => estimate(n, scope)));
  // `size()` counts; conversions copy their argument at most (`bytes`, `string`, `dyn`, numbers).
  return { size: name === "size" ? 0 : of.size, cost: of.cost + of.size };
}

function methodEstimate(node: Extract<ASTNode, { op: "rcall" }>, scope: Scope): Estimate {
  const [name, receiver, args] = node.args;
  if (COMPREHENSIONS.has(name)) return comprehensionEstimate(name, receiver, args, scope);
  if (name === "bind" && receiver.op === "id" && receiver.args === "cel") return bindEstimate(args, scope);
  if (name === "matches") {
    throw new Unbounded(
      "`matches` is not available in conditions: the CEL library runs it on a backtracking engine whose time has no bound (use contains, startsWith or endsWith)",
      node.pos,
    );
  }
  const on = estimate(receiver, scope);
  const with_ = sum(args.map((n) => estimate(n, scope)));
  if (name === "join") {
    const separator = args[0];
    if (separator && separator.op !== "value") {
      throw new Unbounded("`join` takes a literal separator in conditions", separator.pos);
    }
    // Each element gains one separator: a list of n one-byte strings grows by n × its length.
    const extra = separator ? String(separator.args).length : 0;
    return { size: on.size * (1 + extra), cost: on.cost + on.size * (1 + extra) };
  }
  // The string and bytes methods read their receiver and arguments once; what they return is at
  // most twice as large (`split` makes a list of its pieces, `hex` two characters a byte).
  const read = on.size + with_.size;
  return { size: 2 * read, cost: on.cost + with_.cost + read };
}

/** `list.exists(x, body)`: the body once per element, and each element is at most its share of the input. */
function comprehensionEstimate(name: string, receiver: ASTNode, args: ASTNode[], scope: Scope): Estimate {
  const over = estimate(receiver, scope);
  const [variable, ...body] = args;
  if (variable?.op !== "id") throw new Unbounded(`\`${name}\` takes a variable name first`, receiver.pos);
  const outer = new Set([...(scope.outer ?? []), ...scope.sizes.keys()]);
  outer.delete(variable.args);
  const inner: Scope = { sizes: new Map([[variable.args, 1]]), outer };
  const each = sum(body.map((n) => estimate(n, inner)));
  // Summed over the elements, the body's work is its cost per byte of an element, plus a step per
  // element for each of its nodes (at most one element per byte of the list).
  const steps = body.reduce((n, b) => n + countNodes(b), 0);
  const cost = over.cost + over.size * (each.cost + steps);
  const size = name === "map" ? over.size * (each.size + 1) : name === "filter" ? over.size : 0;
  return { size, cost };
}

/** `cel.bind(name, value, body)`: the value once, and `name` in the body as large as it is. */
function bindEstimate(args: ASTNode[], scope: Scope): Estimate {
  const [variable, value, body] = args;
  if (variable?.op !== "id" || !value || !body) return NOTHING;
  const bound = estimate(value, scope);
  const sizes = new Map(scope.sizes).set(variable.args, bound.size);
  const outer = scope.outer ? new Set([...scope.outer].filter((n) => n !== variable.args)) : null;
  const inBody = estimate(body, { sizes, outer });
  return { size: inBody.size, cost: bound.cost + inBody.cost };
}

function countNodes(node: unknown): number {
  if (Array.isArray(node)) return node.reduce((n: number, child) => n + countNodes(child), 0);
  if (node && typeof node === "object" && "op" in node)
    return 1 + countNodes((node as unknown as { args: unknown }).args);
  return 0;
}

/** The cost of evaluating `ast`, in passes over the input, or the first construct that cannot be bounded. */
export function estimateCost(ast: ASTNode, inputs: readonly string[]): CostEstimate {
  try {
    const scope: Scope = { sizes: new Map(inputs.map((name) => [name, 1])), outer: null };
    return { ok: true, cost: estimate(ast, scope).cost + countNodes(ast) };
  } catch (e) {
    if (e instanceof Unbounded) return { ok: false, message: e.message, at: e.at };
    throw e;
  }
}
