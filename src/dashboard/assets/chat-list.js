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

/** `just now`, `5 min ago`, `3 h ago`, `2 d ago`. */
export function ago(iso, now = Date.now()) {
  const s = Math.max(0, Math.round((now - Date.parse(iso)) / 1000));
  if (s < 45) return "just now";
  if (s < 3600) return `${Math.max(1, Math.round(s / 60))} min ago`;
  if (s < 86_400) return `${Math.round(s / 3600)} h ago`;
  return `${Math.round(s / 86_400)} d ago`;
}
