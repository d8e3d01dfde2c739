/**
 * Drill: 10 000 malformed or hostile request bodies (bad JSON, deep nesting,
 * prototype keys, huge strings, out-of-range numbers). None answers 5xx, none
 * refused creates a chat, and fanout still runs a call afterwards.
 */

export async function hostileBodies(ctx) {
  const { call, report } = ctx;
  console.log("drill: 10 000 malformed or hostile request bodies…");
  const hostile = (i) => {
    const pick = i % 10;
    const deep = (n) => (n === 0 ? {} : { tool_calls: [deep(n - 1)] });
    switch (pick) {
      case 0:
        return "{not json";
      case 1:
        return JSON.stringify({ tool_calls: "x".repeat(200_000) });
      case 2:
        return JSON.stringify(deep(200));
      case 3:
        return JSON.stringify({
          tool_calls: Array.from({ length: 9 + (i % 20) }, () => ({ tool_name: "noop", tool_args: {} })),
        });
      case 4:
        return `{"__proto__": {"polluted": true}, "tool_calls": [{"tool_name": "noop", "tool_args": {"__proto__": {"x": 1}}}], "constructor": {"prototype": {"y": 2}}}`;
      case 5:
        return JSON.stringify({ tool_calls: [{ tool_name: "no\u0000pe\u202e", tool_args: { 𝔁: "💥".repeat(1000) } }] });
      case 6:
        return JSON.stringify({
          tool_calls: [{ tool_name: "slow", tool_args: { ms: "abc" } }],
          timeout: -5,
          job_timeout: 1e308,
        });
      case 7:
        return JSON.stringify([1, 2, 3]);
      case 8:
        return JSON.stringify({ action: "cancel", job_ids: Array.from({ length: 500 }, (_, k) => `x-${k}`) });
      default:
        return JSON.stringify({
          tool_calls: [{ tool_name: "parallel", tool_args: { tool_calls: [] } }],
          callback_url: "http://evil",
        });
    }
  };
  let fiveXX = 0;
  let accepted = 0;
  let leaked = 0;
  for (let i = 0; i < 10_000; i += 20) {
    await Promise.all(
      Array.from({ length: 20 }, async (_, k) => {
        const n = i + k;
        const chatId = `fuzz-${n}`;
        const res = await call(`/v1/chats/${chatId}/parallel`, hostile(n));
        if (res.status >= 500) fiveXX++;
        if (res.status === 200) accepted++;
        else if (n % 50 === 0 && (await call(`/v1/chats/${chatId}`)).status !== 404) leaked++;
      }),
    );
  }
  const alive = (await call("/v1/chats/after-fuzz/parallel", { tool_calls: [{ tool_name: "noop", tool_args: {} }] }))
    .json?.status;
  report(
    "hostile bodies",
    {
      requests: 10_000,
      "5xx": fiveXX,
      "accepted (valid by chance)": accepted,
      "refused yet created": leaked,
      afterwards: alive,
    },
    fiveXX === 0 && leaked === 0 && alive === "success",
  );
}
