/**
 * Drill: 1000 requests with wrong, missing and other-tenant keys against a
 * chat with jobs (`known`, from the restart drill). Every one is refused
 * (401, or 404 for the other tenant) and the job is left untouched.
 */
import { OTHER_KEY } from "../services.mjs";

export async function wrongKeys(ctx, known) {
  const { call, report } = ctx;
  console.log("drill: 1000 requests with wrong, missing and other-tenant keys…");
  const statuses = new Map();
  for (let i = 0; i < 1000; i++) {
    const kind = i % 3;
    const headers =
      kind === 0
        ? { authorization: "Bearer wrong-key", "content-type": "application/json" }
        : kind === 1
          ? { "content-type": "application/json" }
          : { authorization: `Bearer ${OTHER_KEY}` };
    const res =
      kind === 2
        ? await call(`/v1/chats/${known.chatId}/jobs/${known.ids[0]}`, undefined, headers)
        : await call(`/v1/chats/${known.chatId}/parallel`, { action: "cancel", job_ids: known.ids }, headers);
    statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
  }
  const untouched = (await call(`/v1/chats/${known.chatId}/jobs/${known.ids[0]}`)).json?.state;
  const authOk = [...statuses.keys()].every((s) => s === 401 || s === 404) && untouched !== "cancelled";
  report(
    "auth",
    { ...Object.fromEntries([...statuses].map(([s, n]) => [`HTTP ${s}`, n])), "job still": untouched },
    authOk,
  );
}
