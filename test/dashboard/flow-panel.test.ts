/** The dashboard's Flow panel words (src/edge/dashboard/assets/flow-panel.js), in Node as the page loads it. */
import { describe, expect, it } from "vitest";

interface FlowPanel {
  flowRules(
    flow: unknown,
  ): { name: string; busy: boolean; figures: string; rate: string | null; keys: { key: string; figures: string }[] }[];
}
const panel = (await import(
  new URL("../../src/edge/dashboard/assets/flow-panel.js", import.meta.url).href
)) as FlowPanel;

describe("the Flow panel", () => {
  it("says what each rule runs and holds back, its rate's headroom in words, and its busiest keys", () => {
    const rules = panel.flowRules({
      rules: [
        // A rule without a key: its one key, "", is its totals.
        { name: "search-api", running: 4, queued: 12, keys: [{ key: "", running: 4, queued: 12 }] },
        {
          name: "per-user",
          running: 2,
          queued: 1,
          rate: { limit: 10, period_seconds: 60, available: 1 },
          keys: [
            { key: "u7", running: 1, queued: 1 },
            { key: "", running: 1, queued: 0 },
          ],
        },
        {
          name: "nightly",
          running: 0,
          queued: 0,
          rate: { limit: 500, period_seconds: 7200, available: 500 },
          keys: [],
        },
      ],
    });
    expect(rules).toEqual([
      { name: "search-api", busy: true, figures: "4 running · 12 queued", rate: null, keys: [] },
      {
        name: "per-user",
        busy: true,
        figures: "2 running · 1 queued",
        rate: "10 a minute · 1 start free",
        keys: [
          { key: "u7", figures: "1 running · 1 queued" },
          { key: "(no key)", figures: "1 running · 0 queued" },
        ],
      },
      {
        name: "nightly",
        busy: false,
        figures: "0 running · 0 queued",
        rate: "500 per 7200 s · 500 starts free",
        keys: [],
      },
    ]);
  });

  it("shows nothing for a tenant without rules", () => {
    expect(panel.flowRules({ rules: [] })).toEqual([]);
    expect(panel.flowRules(null)).toEqual([]);
  });
});
