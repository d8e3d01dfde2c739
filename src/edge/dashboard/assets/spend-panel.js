// The Spending panel's words (docs/api.md#spending-limits): the tenant's spend this period against
// its limits, from `GET /v1/usage`. Pure, like batches.js: the page and the tests run the same file.

const PERIOD = { day: "today (UTC)", month: "this month (UTC)" };
const shown = (field, n) => (field === "cost_usd" ? `$${n.toFixed(2)}` : n.toLocaleString("en-US"));

/**
 * The period and one line per limit (`tool_calls 81 of 100`), with the share used (0 to 1, for a bar)
 * and whether the limit is reached; null when the tenant has no spending limit.
 */
export function spendLines(usage) {
  if (!usage?.limits) return null;
  const lines = Object.entries(usage.limits).map(([field, limit]) => {
    const used = usage.used?.[field] ?? 0;
    return {
      field,
      text: `${field} ${shown(field, used)} of ${shown(field, limit)}`,
      share: Math.min(1, limit > 0 ? used / limit : 1),
      reached: used >= limit,
    };
  });
  return { period: PERIOD[usage.period] ?? usage.period, lines };
}
