// The dashboard's chat list (docs/api.md#dashboard): which chats show, in what order, and how
// long ago each was active. Pure, like batches.js: the page and the tests run the same file.

/**
 * Most recently active first, then by id, so the order is the same live, after a reload and on any
 * screen. `last_activity` is the chat's own (`GET /v1/chats/{chat}`), else the listing's.
 */
export function byActivity(chats) {
  const at = (c) => Date.parse(c.last_activity ?? "") || 0;
  return [...chats].sort((a, b) => at(b) - at(a) || (a.chat_id < b.chat_id ? -1 : a.chat_id > b.chat_id ? 1 : 0));
}

/** Chats whose id or name contains `query` (any case); all of them for an empty query. */
export function matchChats(chats, query) {
  const q = query.trim().toLowerCase();
  if (!q) return chats;
  return chats.filter((c) => c.chat_id.toLowerCase().includes(q) || (c.name ?? "").toLowerCase().includes(q));
}

/** A chat's place in words: `top level`, or `subagent, depth 2`. */
export const levelText = (level) => (level > 0 ? `subagent, depth ${level}` : "top level");

/**
 * `1 running · 2 waiting`: a chat's active jobs, those started apart from those still waiting to
 * (for approval, flow room, their turn), so a chat whose only call waits for a person never reads
 * as running. `waiting_jobs` is absent from an older worker's answer: every active job counts as running.
 */
export function jobCounts(info) {
  const waiting = info.waiting_jobs ?? 0;
  return `${Math.max(0, info.running_jobs - waiting)} running · ${waiting} waiting`;
}

/** The line under a chat's title: its id, its place, who started it (by name), what runs now. */
export function chatMeta(info, nameOf = (id) => id) {
  const parent = info.parent_chat_id ? ` · started by ${nameOf(info.parent_chat_id)}` : "";
  return `${info.chat_id} · ${levelText(info.level)}${parent} · ${jobCounts(info)}`;
}

/** What a subordinate job's child chat is called: its name once known, else the task it was given, else its id. */
export function childName(job, known) {
  return known?.name ?? job.tool_args?.task ?? job.tool_args?.message ?? job.context_id;
}

/** `just now`, `5 min ago`, `3 h ago`, `2 d ago`. */
export function ago(iso, now = Date.now()) {
  const s = Math.max(0, Math.round((now - Date.parse(iso)) / 1000));
  if (s < 45) return "just now";
  if (s < 3600) return `${Math.max(1, Math.round(s / 60))} min ago`;
  if (s < 86_400) return `${Math.round(s / 3600)} h ago`;
  return `${Math.round(s / 86_400)} d ago`;
}
