/** Percentiles and ratios for the benchmark table. */

export function percentile(values, p) {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank];
}

export const summary = (values) => ({
  n: values.length,
  p50: percentile(values, 50),
  p90: percentile(values, 90),
  p99: percentile(values, 99),
});

export const round = (x, digits = 1) => (Number.isFinite(x) ? Math.round(x * 10 ** digits) / 10 ** digits : x);
