// The Approvals panel's words (docs/api.md#approvals): the tenant's calls waiting for a person, from
// `GET /v1/approvals`. Pure, like batches.js: the page and the tests run the same file.

/** `in 23 h`, `in 5 min`, `in 40 s`, `now`: how long a person has left to decide. */
export function timeLeft(iso, now = Date.now()) {
  const s = Math.round((Date.parse(iso) - now) / 1000);
  if (s <= 0) return "now";
  if (s < 60) return `in ${s} s`;
  if (s < 3600) return `in ${Math.round(s / 60)} min`;
  if (s < 86_400) return `in ${Math.round(s / 3600)} h`;
  return `in ${Math.round(s / 86_400)} d`;
}

/** Each waiting call as the panel shows it: what would run, with what, who asked, where, and until when. */
export function approvalRows(list, now = Date.now()) {
  return (list?.approvals ?? []).map((a) => ({
    chatId: a.chat_id,
    jobId: a.job_id,
    tool: a.tool_name,
    args: a.tool_args === null ? "(too long to list: open the job)" : JSON.stringify(a.tool_args, null, 2),
    asked: `asked by ${a.agent === "default" ? "the bot's agent" : `the ${a.agent} agent`} in ${a.chat_id}`,
    expires: `expires ${timeLeft(a.expires_at, now)}`,
  }));
}
