/**
 * `permission.task` (docs/api.md#caps-permissions-and-depth, Zhin ADR 0030): which subordinate types a
 * calling agent may start. Rules are `[glob, "allow" | "deny"]` in order; the
 * last matching rule wins; no rules at all allows everything; rules with no
 * match deny. An omitted type is `default` and is checked like any other.
 */
import { globMatch } from "../tools/glob";

export type TaskAction = "allow" | "deny";
export type TaskRules = [string, TaskAction][] | Record<string, TaskAction>;

/** The rules as an ordered list; the object form keeps its (non integer-like) key order. */
export function orderedRules(rules: TaskRules | undefined): [string, TaskAction][] {
  if (!rules) return [];
  return Array.isArray(rules) ? rules : Object.entries(rules);
}

export function mayStart(rules: TaskRules | undefined, type: string): boolean {
  const list = orderedRules(rules);
  if (list.length === 0) return true;
  let verdict: TaskAction = "deny";
  for (const [glob, action] of list) if (globMatch(glob, type)) verdict = action;
  return verdict === "allow";
}

/** The subordinate types (profiles) an agent may start, in the order given. */
export function permittedTypes(rules: TaskRules | undefined, profiles: string[]): string[] {
  return profiles.filter((p) => mayStart(rules, p));
}
