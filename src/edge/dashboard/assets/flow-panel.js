// The Flow panel's words (docs/api.md#dashboard): what each flow rule holds back now, from
// `GET /v1/flow`. Pure, like batches.js: the page and the tests run the same file.

const PERIODS = { 1: "second", 60: "minute", 3600: "hour", 86400: "day" };
const per = (seconds) => (PERIODS[seconds] ? `a ${PERIODS[seconds]}` : `per ${seconds} s`);
const figures = ({ running, queued }) => `${running} running · ${queued} queued`;

/**
 * Each rule as the panel shows it: its name, what runs and waits under it, its rate's headroom now
 * (`10 a minute · 7 starts free`) and its busiest keys (a call without the key's field is `(no key)`).
 * `busy`: calls wait under it. A rule without a key lists its one key `""`: that says no more than
 * its totals, so no key is listed.
 */
export function flowRules(flow) {
  return (flow?.rules ?? []).map((rule) => ({
    name: rule.name,
    busy: rule.queued > 0,
    figures: figures(rule),
    rate: rule.rate
      ? `${rule.rate.limit} ${per(rule.rate.period_seconds)} · ${rule.rate.available} ${rule.rate.available === 1 ? "start" : "starts"} free`
      : null,
    keys:
      rule.keys?.length === 1 && rule.keys[0].key === ""
        ? []
        : (rule.keys ?? []).map((k) => ({ key: k.key === "" ? "(no key)" : k.key, figures: figures(k) })),
  }));
}
