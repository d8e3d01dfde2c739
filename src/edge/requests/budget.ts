/**
 * `?budget=` (docs/api.md#budgets): a request lowers its batch's budget, never raises it. Request metadata:
 * never model-written.
 */
import { budgetSchema, effectiveBudget, type Budget } from "../../core/budgets/budget";
import { badRequest } from "../../core/http/errors";

const EXAMPLE =
  '`budget` must be a JSON object like {"llm_tokens": 50000, "tool_calls": 20} (fields llm_tokens, llm_calls, tool_calls, subagents, cost_usd)';

/** The batch's budget: the configured one, each field lowered to the request's where it asks for less. */
export function requestBudget(raw: string | undefined, configured: Budget): Budget | undefined {
  if (raw === undefined) return effectiveBudget(configured, undefined);
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw badRequest("invalid_budget", `${EXAMPLE}; it is not JSON.`);
  }
  const checked = budgetSchema.safeParse(parsed);
  if (!checked.success)
    throw badRequest(
      "invalid_budget",
      `${EXAMPLE}: ${checked.error.issues.map((i) => `${i.path.join(".") || "budget"} ${i.message}`).join("; ")}.`,
    );
  return effectiveBudget(configured, checked.data);
}
