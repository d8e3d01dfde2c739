// The fanout dashboard (docs/api.md#dashboard): plain browser JavaScript, served as is by
// the worker, no build step. Everything that comes from the API is put in the
// page as text (DOM nodes, never HTML), and the API key lives only in this
// tab's sessionStorage.

import { filterJobs, groupBatches } from "/batches.js";
import { ago, byActivity, chatMeta, childName, jobCounts, matchChats } from "/chat-list.js";
import { batchSection, deliveryRow, transcriptList } from "/chat-view.js";
import { approvalRows } from "/approvals.js";
import { spendLines } from "/spend-panel.js";
import { flowRules } from "/flow-panel.js";
import { JOB_STATES } from "/job-states.js";
import { $, h } from "/view.js";

const KEY = "fanout.apiKey";
/** The name given at sign-in: `by` on the decisions taken here (kept with the key, in this tab only). */
const SIGNER = "fanout.signer";
/** Jobs read per page: a chat of hundreds shows its newest first, and older ones on request. */
const JOBS_PER_PAGE = 24;
const enc = encodeURIComponent;

const state = {
  roots: [], // top-level chat ids, in list order
  chats: new Map(), // chat id → chat info (GET /v1/chats/{chat})
  expanded: new Set(),
  selected: null,
  jobs: [], // job records of the selected chat, newest first
  shown: JOBS_PER_PAGE, // how many of its newest jobs are read
  jobTotal: 0, // how many jobs its log names
  filter: { state: "", tool: "" }, // what the selected chat's jobs are narrowed to ("" = any)
  search: "", // the chat list's search text
  listed: new Map(), // chat id → its entry in GET /v1/chats (until its own info is read)
  log: [],
  deliveries: [], // the selected chat's failed, then pending, webhook events
  transcript: [], // a child chat's conversation (GET …/transcript)
  cursor: null, // last tenant-stream cursor seen
  socket: null,
  wasLive: false, // the stream has been open before: a new open is a resume
  retryMs: 1000,
};

/** The connection's state once signed in; before that (and after signing out) there is none to show. */
function setStatus(mode) {
  const el = $("status");
  el.hidden = mode === null;
  el.dataset.state = mode ?? "";
  el.textContent = mode ?? "";
}

/** `npm start` serves on this machine with a documented dev key: say so where it applies, and only there. */
const LOCAL_HOSTS = new Set(["127.0.0.1", "localhost", "[::1]"]);

// ---- the API --------------------------------------------------------------------

async function api(path, init = {}) {
  const res = await fetch(path, {
    ...init,
    headers: {
      authorization: `Bearer ${sessionStorage.getItem(KEY)}`,
      "content-type": "application/json",
      ...init.headers,
    },
  });
  if (res.status === 401) {
    signOut("That API key was refused.");
    throw new Error("unauthorized");
  }
  if (res.status === 204) return null;
  const body = await res.json().catch(() => null);
  if (!res.ok) throw new Error(body?.error?.message ?? `HTTP ${res.status}`);
  return body;
}

// ---- chats ----------------------------------------------------------------------

async function refreshChat(id) {
  try {
    state.chats.set(id, await api(`/v1/chats/${enc(id)}`));
  } catch {
    state.chats.delete(id); // deleted or purged
    state.roots = state.roots.filter((r) => r !== id);
  }
}

async function loadChats() {
  const list = await api("/v1/chats?limit=100");
  state.roots = list.chats.map((c) => c.chat_id);
  state.listed = new Map(list.chats.map((c) => [c.chat_id, c]));
  await Promise.all(state.roots.map(refreshChat));
  renderTree();
}

const isRunning = (info) => (info?.running_jobs ?? 0) > 0;

function chatNode(id, summary) {
  const info = state.chats.get(id) ?? summary;
  const children = state.chats.get(id)?.children ?? [];
  const open = state.expanded.has(id) && children.length > 0;
  return h(
    "li",
    { role: "treeitem", "data-chat": id, "aria-expanded": children.length ? String(open) : undefined },
    h(
      "div",
      { class: "node" },
      h(
        "button",
        {
          type: "button",
          class: children.length ? "toggle" : "toggle leaf",
          "aria-label": `${open ? "Collapse" : "Expand"} ${info?.name ?? id}`,
          "aria-expanded": String(open),
          onclick: () => toggle(id),
        },
        "▸",
      ),
      h(
        "button",
        { type: "button", class: "pick", "aria-current": String(state.selected === id), onclick: () => select(id) },
        h("span", { class: isRunning(info) ? "dot live" : "dot", title: isRunning(info) ? "running" : "idle" }),
        h("span", { class: "name" }, info?.name ?? id),
        isRunning(info) ? h("span", { class: "count" }, jobCounts(info)) : null,
        info?.last_activity
          ? h("span", { class: "when", title: new Date(info.last_activity).toLocaleString() }, ago(info.last_activity))
          : null,
      ),
    ),
    open
      ? h(
          "ul",
          { role: "group" },
          children.map((child) => chatNode(child.chat_id, child)),
        )
      : null,
  );
}

function renderTree() {
  const roots = state.roots.map((id) => state.chats.get(id) ?? state.listed.get(id) ?? { chat_id: id, name: id });
  const shown = matchChats(byActivity(roots), state.search);
  $("tree").replaceChildren(...shown.map((c) => chatNode(c.chat_id)));
  $("no-chats").hidden = state.roots.length > 0;
  $("no-match").hidden = state.roots.length === 0 || shown.length > 0;
}

async function toggle(id) {
  if (state.expanded.has(id)) state.expanded.delete(id);
  else {
    state.expanded.add(id);
    // Children's own children show once their info is known.
    await Promise.all((state.chats.get(id)?.children ?? []).map((c) => refreshChat(c.chat_id)));
  }
  renderTree();
}

// ---- flow rules -------------------------------------------------------------------

/** Read at sign-in, a second after jobs start or end, and every 10 s (a rate's headroom grows back by itself). */
const FLOW_REFRESH_MS = 10_000;
let flowSoon = null;

async function loadFlow() {
  const rules = flowRules(await api("/v1/flow"));
  $("flow-panel").hidden = rules.length === 0;
  const figures = (text, more) => h("span", { class: "figures" }, text, more ? ` · ${more}` : "");
  $("flow").replaceChildren(
    ...rules.map((r) =>
      h(
        "li",
        { "data-rule": r.name, class: r.busy ? "busy" : undefined },
        h("strong", {}, r.name),
        figures(r.figures, r.rate),
        r.keys.length
          ? h(
              "ul",
              { class: "flow-keys" },
              r.keys.map((k) => h("li", {}, h("span", { class: "key" }, k.key), figures(k.figures))),
            )
          : null,
      ),
    ),
  );
}

/** The tenant's spend this period against its limits (`GET /v1/usage`); hidden without a limit. */
async function loadSpend() {
  const spend = spendLines(await api("/v1/usage"));
  $("spend-panel").hidden = spend === null;
  if (!spend) return;
  $("spend-period").textContent = spend.period;
  $("spend").replaceChildren(
    ...spend.lines.map((line) =>
      h(
        "li",
        { "data-field": line.field, class: line.reached ? "busy" : undefined },
        h("span", { class: "figures" }, line.text),
        h("progress", { max: "1", value: String(line.share) }),
      ),
    ),
  );
}

function flowChanged() {
  flowSoon ??= setTimeout(() => {
    flowSoon = null;
    loadFlow().catch(() => {});
    loadSpend().catch(() => {});
  }, 1000);
}

// ---- approvals ------------------------------------------------------------------------

/** The tenant's calls waiting for a person, each with Approve and Deny (and a reason for either). */
async function loadApprovals() {
  const rows = approvalRows(await api("/v1/approvals?limit=50"));
  $("approvals-panel").hidden = rows.length === 0;
  $("approvals").replaceChildren(
    ...rows.map((r) => {
      const reason = h("input", {
        type: "text",
        class: "reason",
        placeholder: "reason (optional)",
        "aria-label": `Reason for ${r.tool}`,
        maxlength: 500,
      });
      const decide = (decision) => () => decideApproval(r.chatId, r.jobId, decision, reason.value.trim());
      return h(
        "li",
        { "data-job": r.jobId },
        h("strong", {}, r.tool),
        h("span", { class: "muted" }, r.asked),
        h("span", { class: "muted" }, r.expires),
        h("pre", {}, r.args),
        reason,
        h(
          "div",
          { class: "decide" },
          h("button", { type: "button", class: "approve", onclick: decide("approve") }, "Approve"),
          h("button", { type: "button", class: "deny", onclick: decide("deny") }, "Deny"),
        ),
      );
    }),
  );
}

let approvalsSoon = null;
function approvalsChanged() {
  approvalsSoon ??= setTimeout(() => {
    approvalsSoon = null;
    loadApprovals().catch(() => {});
  }, 600);
}

async function decideApproval(chatId, jobId, decision, reason) {
  try {
    await api(`/v1/chats/${enc(chatId)}/jobs/${enc(jobId)}/approval`, {
      method: "POST",
      body: JSON.stringify({
        decision,
        by: sessionStorage.getItem(SIGNER) || "dashboard",
        ...(reason ? { reason } : {}),
      }),
    });
  } finally {
    await loadApprovals().catch(() => {});
    if (state.selected) await loadSelected();
  }
}

// ---- the selected chat --------------------------------------------------------------

async function select(id) {
  if (state.selected !== id) state.shown = JOBS_PER_PAGE;
  state.selected = id;
  $("app").classList.add("has-selection"); // a phone shows the picked chat alone, "‹ Chats" above it
  renderTree();
  await loadSelected();
}

async function loadSelected() {
  const id = state.selected;
  if (!id) return;
  const events = (status) => api(`/v1/chats/${enc(id)}/events?status=${status}`).then((r) => r.events);
  const [info, log, failed, waiting] = await Promise.all([
    api(`/v1/chats/${enc(id)}`),
    api(`/v1/chats/${enc(id)}/log`),
    events("failed"),
    events("pending"),
  ]);
  const records = await newestJobs(id, state.shown);
  // A subagent's chat shows its conversation too.
  const transcript = info.level > 0 ? (await api(`/v1/chats/${enc(id)}/transcript`)).messages : [];
  if (state.selected !== id) return; // another chat was picked meanwhile
  state.jobTotal = new Set(log.rows.map((r) => r.job_id)).size;
  state.chats.set(id, info);
  state.log = log.rows;
  state.deliveries = [...failed, ...waiting]; // what needs a look first
  state.transcript = transcript;
  state.jobs = records;
  renderSelected();
}

/** The chat's newest `count` job records, in pages of up to 100 (one request for the first screen). */
async function newestJobs(chatId, count) {
  const records = [];
  let before = null;
  do {
    const query = new URLSearchParams({
      limit: String(Math.min(100, count - records.length)),
      ...(before ? { before } : {}),
    });
    const page = await api(`/v1/chats/${enc(chatId)}/job-records?${query}`);
    records.push(...page.records);
    before = page.next_before;
  } while (before && records.length < count);
  return records;
}

/** The tool filter offers the tools this chat's jobs used; a choice no longer there is kept until changed. */
function renderFilters() {
  const tools = [...new Set(state.jobs.map((j) => j.tool_name))].sort();
  if (state.filter.tool && !tools.includes(state.filter.tool)) tools.push(state.filter.tool);
  $("filter-tool").replaceChildren(
    h("option", { value: "" }, "any tool"),
    ...tools.map((t) => h("option", { value: t, selected: t === state.filter.tool }, t)),
  );
  $("filter-state").value = state.filter.state;
}

function renderSelected() {
  const info = state.chats.get(state.selected);
  $("pick").hidden = true;
  $("chat").hidden = false;
  $("chat-title").textContent = info.name;
  const nameOf = (chatId) => state.chats.get(chatId)?.name ?? state.listed.get(chatId)?.name ?? chatId;
  $("chat-meta").textContent = chatMeta(info, nameOf);
  renderFilters();
  const id = info.chat_id;
  const actions = {
    select,
    cancel: (jobId) => cancel(id, jobId),
    rerun: (batchId) => rerun(id, batchId),
    redeliver: (eventId) => redeliver(id, eventId),
    childName: (job) => childName(job, state.chats.get(job.context_id)),
  };
  const now = Date.now();
  const sections = groupBatches(state.jobs, now)
    .map((batch) => [batch, filterJobs(batch.jobs, state.filter)])
    .filter(([, jobs]) => jobs.length > 0)
    .map(([batch, jobs]) => batchSection(batch, jobs, now, actions));
  const empty = state.jobs.length ? "No jobs match these filters." : "No jobs kept.";
  const older = state.jobTotal - state.jobs.length;
  const more =
    older > 0
      ? h(
          "button",
          {
            type: "button",
            id: "older",
            onclick: () => {
              state.shown += JOBS_PER_PAGE;
              loadSelected();
            },
          },
          `Show older jobs (${older} more)`,
        )
      : null;
  $("jobs").replaceChildren(
    ...(sections.length ? sections : [h("p", { class: "muted" }, empty)]),
    ...(more ? [more] : []),
  );
  $("deliveries").replaceChildren(
    ...(state.deliveries.length
      ? state.deliveries.map((d) => deliveryRow(d, actions))
      : [h("li", { class: "muted" }, "No pending or failed deliveries.")]),
  );
  $("log").replaceChildren(
    ...state.log.map((row) => h("li", {}, h("strong", {}, row.heading), " ", row.content || "…")),
  );
  $("transcript-box").hidden = state.transcript.length === 0;
  $("transcript").replaceChildren(...transcriptList(state.transcript));
}

async function redeliver(chatId, eventId) {
  try {
    await api(`/v1/chats/${enc(chatId)}/events/${enc(eventId)}/redeliver`, { method: "POST", body: "{}" });
  } finally {
    await loadSelected();
  }
}

/** One signed `webhook.test` to the tenant's webhook, and what its receiver answered. */
async function sendTestEvent() {
  const out = $("webhook-test-result");
  out.textContent = "sending…";
  try {
    const r = await api("/v1/webhook/test", { method: "POST", body: "{}" });
    out.textContent = `${r.status === null ? "no answer" : `HTTP ${r.status}`} in ${r.duration_ms} ms${r.error ? ` · ${r.error}` : ""}`;
  } catch (e) {
    out.textContent = e.message;
  }
}

async function cancel(chatId, jobId) {
  try {
    await api(`/v1/chats/${enc(chatId)}/parallel`, {
      method: "POST",
      body: JSON.stringify({ action: "cancel", job_ids: [jobId] }),
    });
  } finally {
    await loadSelected();
  }
}

/** Reruns the batch's failed part as a new batch of the chat (docs/api.md#rerun), without waiting for it. */
async function rerun(chatId, batchId) {
  try {
    await api(`/v1/chats/${enc(chatId)}/batches/${enc(batchId)}/rerun`, {
      method: "POST",
      body: JSON.stringify({ wait: false }),
    });
  } finally {
    await loadSelected();
  }
}

// ---- live updates -------------------------------------------------------------------

const pending = new Map();

/** Refreshes a chat (and what shows it) once a burst of its events has passed. */
function soon(chatId, parentId) {
  clearTimeout(pending.get(chatId));
  pending.set(
    chatId,
    setTimeout(async () => {
      pending.delete(chatId);
      await refreshChat(chatId);
      if (parentId) await refreshChat(parentId);
      renderTree();
      if (chatId === state.selected) await loadSelected();
    }, 150),
  );
}

function onEvent(event) {
  if (typeof event.cursor === "number") state.cursor = event.cursor;
  const { chat_id: chatId, parent_chat_id: parentId } = event.data;
  // Up to one a second per running MCP tool: shown on its card as it is, without reloading the chat.
  if (event.type === "job.progress") {
    const job = chatId === state.selected && state.jobs.find((j) => j.job_id === event.data.job_id);
    if (job) job.progress = event.data.progress;
    if (job) renderSelected();
    return;
  }
  if (event.type === "chat.created" && !parentId && !state.roots.includes(chatId)) state.roots.unshift(chatId);
  if (event.type.startsWith("job.")) flowChanged();
  // The tenant's list hears of a call a moment after its chat does.
  if (event.type.startsWith("job.approval_") || event.type === "job.finished") approvalsChanged();
  soon(chatId, parentId);
}

async function connect() {
  if (!sessionStorage.getItem(KEY)) return;
  setStatus("reconnecting");
  try {
    const { ticket } = await api("/v1/ws-tickets", { method: "POST", body: "{}" });
    const url = new URL("/v1/events", location.href);
    url.protocol = url.protocol === "https:" ? "wss:" : "ws:";
    url.searchParams.set("ticket", ticket);
    if (state.cursor !== null) url.searchParams.set("after", String(state.cursor));
    const socket = new WebSocket(url);
    state.socket = socket;
    let pinger;
    socket.addEventListener("open", () => {
      setStatus("live");
      state.retryMs = 1000;
      // Back after a drop: what changed meanwhile is read again, whether or not a cursor was seen
      // (the page renders from state, so nothing shows twice).
      if (state.wasLive)
        loadChats()
          .then(loadSelected)
          .catch(() => {});
      state.wasLive = true;
      pinger = setInterval(() => socket.send("ping"), 30_000);
    });
    socket.addEventListener("message", (m) => {
      if (m.data === "pong") return;
      const event = JSON.parse(m.data);
      if (event.type === "cursor.expired") {
        state.cursor = null;
        loadChats().then(loadSelected);
        return;
      }
      onEvent(event);
    });
    socket.addEventListener("close", () => {
      clearInterval(pinger);
      if (state.socket === socket) retry();
    });
  } catch {
    retry();
  }
}

function retry() {
  if (!sessionStorage.getItem(KEY)) return setStatus(null);
  setStatus("reconnecting");
  setTimeout(connect, state.retryMs);
  state.retryMs = Math.min(state.retryMs * 2, 30_000);
}

// ---- signing in and out -------------------------------------------------------------

function signOut(message = "") {
  sessionStorage.removeItem(KEY);
  sessionStorage.removeItem(SIGNER);
  const socket = state.socket;
  state.socket = null;
  state.wasLive = false;
  socket?.close();
  setStatus(null);
  $("app").hidden = true;
  $("app").classList.remove("has-selection");
  state.selected = null;
  $("chat").hidden = true;
  $("pick").hidden = false;
  $("sign-out").hidden = true;
  $("login").hidden = false;
  $("login-error").textContent = message;
}

async function start() {
  $("login").hidden = true;
  $("app").hidden = false;
  $("sign-out").hidden = false;
  // The panel is a view of its own: a failed read of it leaves the chats usable.
  await Promise.all([
    loadChats(),
    loadFlow().catch(() => {}),
    loadSpend().catch(() => {}),
    loadApprovals().catch(() => {}),
  ]);
  connect();
}

// "5 min ago" moves on by itself.
setInterval(() => {
  if (sessionStorage.getItem(KEY) && !$("app").hidden) renderTree();
}, 30_000);
setInterval(() => {
  if (sessionStorage.getItem(KEY) && !$("app").hidden) loadFlow().catch(() => {});
}, FLOW_REFRESH_MS);

document.addEventListener("DOMContentLoaded", () => {
  $("login-form").addEventListener("submit", async (e) => {
    e.preventDefault();
    sessionStorage.setItem(KEY, $("key").value.trim());
    sessionStorage.setItem(SIGNER, $("signer").value.trim());
    $("key").value = "";
    try {
      await start();
    } catch (err) {
      if (sessionStorage.getItem(KEY)) $("login-error").textContent = err.message;
    }
  });
  $("sign-out").addEventListener("click", () => signOut());
  $("local-hint").hidden = !LOCAL_HOSTS.has(location.hostname);
  $("to-chats").addEventListener("click", () => {
    // On a phone the list and a chat take turns: back to the list, the chat still picked.
    $("app").classList.remove("has-selection");
    window.scrollTo(0, 0);
  });
  $("webhook-test").addEventListener("click", () => sendTestEvent());
  $("chat-search").addEventListener("input", (e) => {
    state.search = e.target.value;
    renderTree();
  });
  $("filter-state").append(...Object.keys(JOB_STATES).map((s) => h("option", { value: s }, s)));
  for (const [id, key] of [
    ["filter-state", "state"],
    ["filter-tool", "tool"],
  ]) {
    $(id).addEventListener("change", (e) => {
      state.filter[key] = e.target.value;
      if (state.selected) renderSelected();
    });
  }
  if (sessionStorage.getItem(KEY)) start().catch(() => signOut());
  else signOut();
});
