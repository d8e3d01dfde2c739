/**
 * Drill: against a second fanout run as deployed (no private egress), 2 000
 * hostile configurations must be refused without storing anything or slowing
 * another tenant, and 200 out-of-bound time limits must be refused or bounded
 * without leaving a chat whose alarm throws.
 */
import { OTHER_KEY, startFanout, UNLIMITED } from "../services.mjs";
import { hostileConfig } from "../hostile-config.mjs";
import { auth } from "./kit.mjs";

export async function deployedBounds(ctx) {
  const { report } = ctx;
  console.log(
    "drill: 2 000 hostile configurations and 200 out-of-bound time limits, against a fanout without private egress…",
  );
  // 2,000 configurations from one key in under 10 s: the per-key limit would answer most of them.
  const deployed = await startFanout({}, { privateEgress: false, requestsPer10s: UNLIMITED });
  try {
    const other = { authorization: `Bearer ${OTHER_KEY}`, "content-type": "application/json" };
    const at = async (path, body, headers, method) => {
      const res = await fetch(`${deployed.url}${path}`, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return { status: res.status, text: await res.text() };
    };
    let configs5xx = 0;
    let acceptedConfigs = 0;
    let storedByRefused = 0;
    let slowestOther = 0;
    for (let i = 0; i < 2000; i += 20) {
      const before = (await at("/v1/config", undefined, other, "GET")).text;
      const round = await Promise.all([
        ...Array.from({ length: 20 }, async (_, k) => {
          const { method, body, refuse } = hostileConfig(i + k);
          const headers = method === "PATCH" ? { ...other, "content-type": "application/merge-patch+json" } : other;
          return { ...(await at("/v1/config", body, headers, method)), refuse };
        }),
        (async () => {
          // Another tenant's request while the hostile ones are checked.
          const start = Date.now();
          await at("/v1/config", undefined, auth, "GET");
          slowestOther = Math.max(slowestOther, Date.now() - start);
          return { status: 0 };
        })(),
      ]);
      configs5xx += round.filter((r) => r.status >= 500).length;
      const accepted = round.filter((r) => r.status === 200).length;
      acceptedConfigs += round.filter((r) => r.status === 200 && r.refuse).length;
      if (accepted === 0 && (await at("/v1/config", undefined, other, "GET")).text !== before) storedByRefused++;
    }
    report(
      "hostile configurations",
      {
        requests: 2000,
        "5xx": configs5xx,
        "accepted though past a bound": acceptedConfigs,
        "rounds where a refused request stored something": storedByRefused,
        "other tenant's slowest answer": `${slowestOther} ms`,
      },
      configs5xx === 0 && acceptedConfigs === 0 && storedByRefused === 0 && slowestOther < 1000,
    );

    // Out-of-bound time limits must be refused (or bounded) without leaving a chat whose alarm throws:
    // afterwards every one of these chats still runs a short wait to its end.
    // The longest accepted limits go in too: a chat holding a timer 30 days out must still run its alarm.
    await at(
      "/v1/config",
      { limits: { max_job_timeout_seconds: 2_592_000, tool_job_timeout_seconds: 2_592_000 } },
      auth,
      "PUT",
    );
    const huge = [1e308, Number.MAX_SAFE_INTEGER, 2 ** 53 + 2, 1e21, 2_592_001, -1, "1e308", 2_592_000];
    let limits5xx = 0;
    const limitChats = [];
    for (let k = 0; k < 200; k++) {
      const chat = `limits-${k}`;
      const value = huge[k % huge.length];
      const body =
        k % 2 === 0
          ? { tool_calls: [{ tool_name: "wait", tool_args: { seconds: value } }], job_timeout: 2_592_000, wait: false }
          : { tool_calls: [{ tool_name: "wait", tool_args: { seconds: 1 } }], job_timeout: value, wait: false };
      const res = await at(`/v1/chats/${chat}/parallel`, body, auth, "POST");
      if (res.status >= 500) limits5xx++;
      limitChats.push(chat);
    }
    let alarmsAlive = 0;
    await Promise.all(
      limitChats.map(async (chat) => {
        const res = await at(
          `/v1/chats/${chat}/parallel`,
          { tool_calls: [{ tool_name: "wait", tool_args: { seconds: 1 } }], job_timeout: 30, timeout: 20 },
          auth,
          "POST",
        );
        if (res.status === 200 && JSON.parse(res.text).jobs?.[0]?.state === "success") alarmsAlive++;
      }),
    );
    report(
      "out-of-bound time limits",
      { requests: 200, "5xx": limits5xx, "chats whose alarm still runs": `${alarmsAlive}/200` },
      limits5xx === 0 && alarmsAlive === 200,
    );
  } finally {
    await deployed.stop();
  }
}
