/**
 * The "extras" text a bot appends to its model's context each turn, so the
 * model remembers background jobs it has not collected (docs/api.md#extras). Running
 * jobs first, then the oldest uncollected finished ones; cancelled and
 * timed-out jobs are left out; at most 20 job lines.
 */
import { durationSeconds, isTerminal, type JobRow } from "./job";

const MAX_LINES = 20;

export function extrasText(jobs: JobRow[], now: number): string | null {
  const eligible = jobs.filter((j) => j.collected_at === null && j.state !== "cancelled" && j.state !== "timeout");
  if (eligible.length === 0) return null;
  const running = eligible.filter((j) => !isTerminal(j.state)).sort((a, b) => a.created_at - b.created_at);
  const ready = eligible
    .filter((j) => isTerminal(j.state))
    .sort((a, b) => (a.completed_at ?? 0) - (b.completed_at ?? 0));
  const secs = (j: JobRow) => durationSeconds(j, now).toFixed(1);

  const lines = ["parallel jobs:"];
  let shown = 0;
  const room = () => shown < MAX_LINES;
  if (running.length) {
    lines.push("running:");
    for (const j of running)
      if (room() && ++shown) lines.push(`- ${j.job_id}: ${j.tool_name} [${j.state}], running for ${secs(j)}s`);
  }
  if (ready.length && room()) {
    lines.push("ready to collect with `parallel` and `job_ids`:");
    for (const j of ready)
      if (room() && ++shown) lines.push(`- ${j.job_id}: ${j.tool_name} [${j.state}], duration ${secs(j)}s`);
  }
  const hidden = eligible.length - shown;
  if (hidden > 0) lines.push(`- … and ${hidden} more`);
  lines.push('call the `parallel` tool with `job_ids` to await/collect results or `action: "cancel"` to cancel.');
  return lines.join("\n");
}
