/**
 * Whether a JSON Schema `pattern` can make the isolate's backtracking regex
 * engine run for long (docs/api.md#tool-schema-safety). Tool schemas come from tenants and MCP
 * servers, strings from models: `^(a+)+$` doubles its work per character, and
 * `^a*a*a*b$` took 3 minutes on 10,000 characters in V8 (measured in Node 20),
 * stalling every tenant of the isolate. A pattern is refused when its shape
 * lets one piece of text be matched in more than one way, which is what
 * backtracking explores:
 * - a backreference;
 * - a repeated part that itself contains a repetition of variable count (`(a+)+`);
 * - alternatives that can start with the same character (`(a|ab)*`, and anywhere else:
 *   24 `(?:a|[ab])` in a row double per group);
 * - two repetitions of variable count (`a*`, `a{0,16}`, `(a|)`) that can take the same
 *   characters with only such characters between them (`a*a*`, `\S+@\S+`), counting the
 *   scan of an unanchored pattern as one (`\d+x` tries every start: 98 ms on 10,000 digits);
 * - a lookbehind of variable length (matched backwards from every position).
 * The first two make backtracking exponential; the others are what polynomial backtracking
 * needs, and the 50 ms CPU budget (docs/architecture.md#platform-rules) rules that out too. The check is conservative (some safe
 * patterns are refused; each message says how to rewrite) and runs in time linear in the
 * pattern times the repetitions open at once. `bench/regex-fuzz.mjs` times the patterns it
 * accepts against adversarial strings.
 */
import { parse, type AstNode as AnyNode, type CharacterClassBody, type RootNode as AnyRoot } from "regjsparser";
import { ALL, complement, ESCAPES, LINE_TERMINATORS, NONE, overlap, union, type Ranges } from "./char-sets";

/** The syntax JSON Schema patterns may use (ECMA-262 with the `u` flag). */
const FEATURES = { namedGroups: true, lookbehind: true, unicodePropertyEscape: true } as const;
type AstNode = AnyNode<typeof FEATURES>;
type RootNode = AnyRoot<typeof FEATURES>;

/** Longer patterns are refused before parsing, so the check itself stays cheap. */
export const MAX_PATTERN_CHARS = 1024;

/** What a part of a pattern can match, as far as backtracking is concerned. */
interface Shape {
  nullable: boolean;
  /** Characters it can start with. */
  first: Ranges;
  /** Characters it can consume anywhere. */
  chars: Ranges;
  /** Contains a repetition whose count can vary, where two of them can split a text many ways. */
  wide: boolean;
  /** Contains a repetition whose count can vary. */
  variable: boolean;
}

const ZERO_WIDTH: Shape = { nullable: true, first: NONE, chars: NONE, wide: false, variable: false };
const single = (chars: Ranges): Shape => ({ nullable: false, first: chars, chars, wide: false, variable: false });

/** A wide repetition seen earlier in a sequence, and what was matched since. */
interface OpenRepetition {
  chars: Ranges;
  /** The characters of each part after it that must match something. */
  between: Ranges[];
  /** The implicit scan of an unanchored pattern over every start position. */
  scan?: true;
  /** Seen from inside a lookaround: the pattern goes on after it, and that may fail. */
  tailFails?: true;
}

class Backtracks extends Error {}

/** Why `pattern` is refused, or undefined when it cannot backtrack far. */
export function backtrackingReason(pattern: string): string | undefined {
  if (pattern.length > MAX_PATTERN_CHARS) return `is longer than ${MAX_PATTERN_CHARS} characters`;
  try {
    new RegExp(pattern, "u");
  } catch (e) {
    return `is not a valid regular expression (${(e as Error).message})`;
  }
  let root: RootNode;
  try {
    root = parse(pattern, "u", FEATURES);
  } catch {
    return "uses regular-expression syntax fanout cannot check";
  }
  try {
    // An unanchored pattern is tried at every start: as if a wide repetition of anything came first.
    new ShapeCheck().alternatives(root, [{ chars: ALL, between: [], scan: true }]);
    return undefined;
  } catch (e) {
    if (e instanceof Backtracks) return e.message;
    throw e;
  }
}

class ShapeCheck {
  readonly #shapes = new Map<AstNode, Shape>();

  /** Checks each alternative of `node` as a sequence that starts with the given open repetitions. */
  alternatives(node: RootNode, open: OpenRepetition[]): void {
    if (node.type === "disjunction") {
      this.#distinct(node);
      for (const alt of node.body) this.alternatives(alt, open);
    }
    else this.sequence(node.type === "alternative" ? node.body : [node], open);
  }

  /**
   * `before`: wide repetitions earlier in the pattern that can still reach this point. A later wide
   * repetition Y is ambiguous with an open X when both can take some of the same characters and
   * every part between them can be taken by X and by Y alike: then a text can be split between
   * them in many ways, and a failing match tries each.
   */
  sequence(items: RootNode[], before: OpenRepetition[]): void {
    let open = before.map((o) => ({ ...o, between: [...o.between] }));
    for (const [index, item] of items.entries()) {
      if (item.type === "anchor" && item.kind === "start") open = [];
      this.#inside(item, open);
      const shape = this.shape(item);
      const ambiguous = (o: OpenRepetition) =>
        overlap(o.chars, shape.chars) &&
        o.between.every((b) => overlap(b, shape.chars)) &&
        // The scan from every start only costs when something after the repetition can fail
        // (inside a group, something after it may: counted as such).
        (!o.scan || o.tailFails || item.type === "group" || this.#canFail(items.slice(index + 1)));
      if (shape.wide && open.some(ambiguous)) {
        throw new Backtracks(`has two unbounded repetitions that can match the same characters (at ${quote(item.raw)}); separate them with a character neither can match, or anchor the pattern with ^`);
      }
      if (!shape.nullable) {
        open = open.filter((o) => overlap(o.chars, shape.chars));
        for (const o of open) o.between.push(shape.chars);
      }
      if (shape.wide) open.push({ chars: shape.chars, between: [] });
    }
  }

  /** Whether matching can fail somewhere in `items` (a nullable repetition cannot; `$` can). */
  #canFail(items: RootNode[]): boolean {
    return items.some((item) => !this.shape(item).nullable || item.type === "anchor" || isLookaround(item));
  }

  #inside(node: RootNode, open: OpenRepetition[]): void {
    switch (node.type) {
      case "reference":
        throw new Backtracks(`uses a backreference (${quote(node.raw)})`);
      case "group":
        // A lookbehind of variable length is matched backwards from every position it is tried at.
        if ((node.behavior === "lookbehind" || node.behavior === "negativeLookbehind") && this.shape(node).variable) {
          throw new Backtracks(`has a lookbehind of variable length (${quote(node.raw)}); give it a fixed length`);
        }
        // A lookaround runs where it stands, so what is open there is open inside it.
        if (node.behavior === "normal" || node.behavior === "ignore") this.#group(node.body, []);
        // What follows the lookaround may fail, so the scan costs inside it whatever comes after.
        else this.#group(node.body, open.map((o) => (o.scan ? { ...o, tailFails: true as const } : o)));
        return;
      case "quantifier": {
        const [body] = node.body;
        if (node.max === undefined || node.max > 1) this.#repeated(node, body);
        this.#group([body], []);
        return;
      }
      case "disjunction":
      case "alternative":
        this.alternatives(node, open);
        return;
      default:
        return;
    }
  }

  #group(body: RootNode[], open: OpenRepetition[]): void {
    if (body.length === 1) this.alternatives(body[0]!, open);
    else this.sequence(body, open);
  }

  #repeated(node: RootNode, body: RootNode): void {
    if (this.shape(body).variable) {
      throw new Backtracks(`repeats a part that itself repeats a variable number of times (${quote(node.raw)}); repeat one of them only`);
    }
  }

  /**
   * Alternatives that can start with the same character are tried one after the other on the
   * same text: under a repetition that doubles per character, and even in a plain sequence
   * (`(?:a|[ab])` 24 times doubled per group), so they are refused wherever they are.
   */
  #distinct(choice: Extract<AstNode, { type: "disjunction" }>): void {
    const shapes = choice.body.map((alt) => this.shape(alt));
    if (shapes.some((a, i) => shapes.slice(i + 1).some((b) => overlap(a.first, b.first)))) {
      throw new Backtracks(`has alternatives that can start with the same character (${quote(choice.raw)}); make each alternative start differently`);
    }
  }

  shape(node: AstNode): Shape {
    let shape = this.#shapes.get(node);
    if (!shape) {
      shape = this.#measure(node);
      this.#shapes.set(node, shape);
    }
    return shape;
  }

  #measure(node: AstNode): Shape {
    switch (node.type) {
      case "value":
        return single([[node.codePoint, node.codePoint]]);
      case "dot":
        return single(complement(LINE_TERMINATORS));
      case "characterClassEscape":
        return single(ESCAPES[node.value]!);
      case "unicodePropertyEscape":
        return single(ALL);
      case "characterClass": {
        // A property escape's members are not listed here: the class may hold anything, negated or not.
        if (node.body.some((part) => part.type === "unicodePropertyEscape")) return single(ALL);
        const chars = node.body.reduce<Ranges>((acc, part) => union(acc, classPart(part)), NONE);
        return single(node.negative ? complement(chars) : chars);
      }
      case "characterClassRange":
        return single([[node.min.codePoint, node.max.codePoint]]);
      case "anchor":
      case "reference":
        return ZERO_WIDTH;
      case "group": {
        const inner = this.#sequenceShape(node.body);
        if (node.behavior === "normal" || node.behavior === "ignore") return inner;
        return { ...ZERO_WIDTH, wide: inner.wide, variable: inner.variable };
      }
      case "alternative":
        return this.#sequenceShape(node.body);
      case "disjunction": {
        const shapes = node.body.map((alt) => this.shape(alt));
        // A choice that may match nothing is a `?` in another spelling.
        const optional = shapes.some((s) => s.nullable);
        return {
          nullable: optional,
          first: shapes.reduce<Ranges>((acc, s) => union(acc, s.first), NONE),
          chars: shapes.reduce<Ranges>((acc, s) => union(acc, s.chars), NONE),
          wide: optional || shapes.some((s) => s.wide),
          variable: optional || shapes.some((s) => s.variable),
        };
      }
      case "quantifier": {
        const body = this.shape(node.body[0]);
        // Any count that can vary: eight `a{0,16}` in a row took 104 s on 100 characters.
        const variable = node.max !== node.min;
        return {
          nullable: node.min === 0 || body.nullable,
          first: body.first,
          chars: body.chars,
          wide: variable || body.wide,
          variable: variable || body.variable,
        };
      }
    }
  }

  #sequenceShape(items: AstNode[]): Shape {
    let nullable = true;
    let first: Ranges = NONE;
    let chars: Ranges = NONE;
    let wide = false;
    let variable = false;
    for (const item of items) {
      const s = this.shape(item);
      if (nullable) first = union(first, s.first);
      nullable &&= s.nullable;
      chars = union(chars, s.chars);
      wide ||= s.wide;
      variable ||= s.variable;
    }
    return { nullable, first, chars, wide, variable };
  }
}

function classPart(part: CharacterClassBody): Ranges {
  switch (part.type) {
    case "value":
      return [[part.codePoint, part.codePoint]];
    case "characterClassRange":
      return [[part.min.codePoint, part.max.codePoint]];
    case "characterClassEscape":
      return ESCAPES[part.value]!;
    default:
      return ALL;
  }
}

const isLookaround = (node: RootNode) => node.type === "group" && node.behavior !== "normal" && node.behavior !== "ignore";

const quote = (raw: string) => (raw.length > 40 ? `${raw.slice(0, 40)}…` : raw);
