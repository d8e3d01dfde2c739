/**
 * The one check a configuration document passes before it is stored, whether
 * it came whole (`PUT`) or as the result of a merge patch (`PATCH`), so both
 * are validated exactly alike (docs/api.md#configuration): the schema, rule names spelled as
 * calls are, the cross-field rules, the rules' conditions, then the egress rules for every outbound URL.
 */
import type { z } from "zod";
import { checkCondition } from "../conditions/condition";
import { configEgressProblems } from "../egress/policy";
import { ruleToolProblems, withCanonicalRuleTools } from "./rule-tools";
import { configSchema, crossFieldProblems, type TenantConfig } from "../config/schema";

export type CheckedConfig = { ok: true; config: TenantConfig } | { ok: false; problems: string[] };

/** What a `PUT` or `PATCH` stored (its version, the secrets it generated), or why it stored nothing. */
export type WriteConfigResult =
  | { ok: true; config: TenantConfig; version: number; generated_secrets: Record<string, string> }
  | { ok: false; problems: string[]; code?: "secret_required" };

/** zod's issues as `path: message` lines a person can act on. */
export const issueLines = (error: z.ZodError): string[] =>
  error.issues.map((i) => `${i.path.join(".") || "(document)"}: ${i.message}`);

export function checkConfig(input: unknown, allowPrivateEgress: boolean): CheckedConfig {
  const parsed = configSchema.safeParse(input);
  if (!parsed.success) return { ok: false, problems: issueLines(parsed.error) };
  const config = withCanonicalRuleTools(parsed.data);
  const problems = [
    ...crossFieldProblems(config),
    ...ruleToolProblems(config),
    ...conditionProblems(config),
    ...configEgressProblems(config, allowPrivateEgress),
  ];
  return problems.length ? { ok: false, problems } : { ok: true, config };
}

/** Each rule's `when` that would not evaluate, or whose cost could not be bounded: the rule and where. */
function conditionProblems(config: TenantConfig): string[] {
  const problems = (kind: "approvals" | "flow", rules: readonly { when?: string | undefined }[]) =>
    rules.flatMap((rule, i) => {
      if (rule.when === undefined) return [];
      const checked = checkCondition(rule.when);
      return checked.ok ? [] : [`${kind}.${i}.when: ${checked.problem}`];
    });
  return [...problems("approvals", config.approvals), ...problems("flow", config.flow)];
}
