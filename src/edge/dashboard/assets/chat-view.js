// The selected chat's parts (docs/api.md#dashboard): its batches with their timelines, its job
// cards and its webhook deliveries, built as DOM from API records (text nodes only). What a button
// does, and a child chat's name, come in `actions` ({select, cancel, redeliver, childName}), so this
// file holds no state of its own.

import {
  attemptsText,
  batchSummary,
  batchUsage,
  decisionText,
  formatMs,
  formatWait,
  isActive,
  rerunOffer,
  runMs,
  timelineBars,
  failureText,
  usageText,
  waitedFor,
  waitingText,
  waitSegments,
} from "/batches.js";
import { clock, h, progressText, svg } from "/view.js";

/** A batch: its header (states, wall time against the sum of its jobs), its timeline and `jobs`, the ones shown. */
export function batchSection(batch, jobs, now, actions) {
  const worst = batch.running ? "running" : (batch.states.find(([s]) => s !== "success")?.[0] ?? "success");
  return h(
    "section",
    { class: "batch", "data-batch": batch.batchId },
    h(
      "div",
      { class: "batch-head" },
      h("span", { class: "state", "data-state": worst }, batch.running ? "running" : "done"),
      h("span", { class: "summary" }, batchSummary(batch)),
      usageText(batchUsage(batch.jobs)) ? h("span", { class: "usage muted" }, usageText(batchUsage(batch.jobs))) : null,
      h("span", { class: "grow" }),
      rerunButton(batch, actions),
      h("span", { class: "muted when" }, clock(batch.acceptedAt)),
    ),
    timeline(batch, jobs, now, actions),
    h(
      "div",
      { class: "jobs" },
      jobs.map((j) => jobCard(j, actions, now)),
    ),
  );
}

/** "Rerun failed" on a finished batch with failures; disabled when none of them is safe to run again. */
function rerunButton(batch, actions) {
  const offer = rerunOffer(batch);
  if (!offer) return null;
  const none = offer.safe === 0;
  return h(
    "button",
    {
      type: "button",
      class: "rerun",
      disabled: none,
      title: none
        ? "None of the failed calls is safe to run again as it is; name one with fanout rerun --job"
        : `Runs the ${offer.safe} failed call(s) that are safe to run again, as a new batch`,
      onclick: () => actions.rerun(batch.batchId),
    },
    none ? "Rerun failed" : `Rerun failed (${offer.safe})`,
  );
}

/** A gate passed in a blink (a spending check, a free flow slot) is not worth a word. */
const worthSaying = (w) => w.reason !== null && w.ms >= 100;

/**
 * One row per job on the batch's time axis: a bar per gate it waited at, labelled and styled by what
 * it waited for (approval, flow, its turn…), then running, in its state's colour.
 */
function timeline(batch, jobs, now, actions) {
  const shown = new Set(jobs.map((j) => j.job_id));
  const rows = timelineBars(batch, now)
    .filter((bar) => shown.has(bar.job.job_id))
    .map(({ job, waits, run }) => {
      const times = [`accepted ${clock(Date.parse(job.created_at))}`];
      for (const w of waits) if (worthSaying(w)) times.push(`waited ${formatWait(w.ms)} for ${waitedFor(w.reason)}`);
      if (job.started_at) times.push(`claimed +${formatMs(Date.parse(job.started_at) - batch.acceptedAt)}`);
      if (job.completed_at) times.push(`ended +${formatMs(Date.parse(job.completed_at) - batch.acceptedAt)}`);
      const label = `#${job.index} ${job.tool_name} · ${job.state} · ${times.join(" · ")}`;
      const opensChild = job.context_id ? () => actions.select(job.context_id) : undefined;
      // A bar at least a pixel or so wide, so an instant job still shows.
      const rect = (seg, cls, more = {}) =>
        svg("rect", {
          class: cls,
          "data-state": job.state,
          x: `${seg.from}%`,
          width: `${Math.max(seg.to - seg.from, 0.4)}%`,
          y: 2,
          height: 12,
          rx: 2,
          ...more,
        });
      // A wait wide enough to hold its word says it on the bar; every wait says it in the row's title.
      const waitBar = (w) => [
        rect(w, "wait", { "data-wait": w.reason ?? "start" }),
        w.reason && w.to - w.from >= 12
          ? svg("text", { class: "wait-label", x: `${w.from + 0.8}%`, y: 12 }, waitedFor(w.reason))
          : null,
      ];
      return h(
        "div",
        { class: opensChild ? "tl-row opens" : "tl-row", "data-job": job.job_id, title: label, onclick: opensChild },
        h("span", { class: "tl-label" }, `#${job.index} ${job.tool_name}`),
        svg(
          "svg",
          { class: "tl-bar", role: "img", "aria-label": label },
          svg("title", {}, label),
          waits.flatMap(waitBar),
          run ? rect(run, "run") : null,
        ),
        h("span", { class: "tl-time" }, job.started_at ? formatMs(runMs(job, now)) : "–"),
      );
    });
  const ends = h(
    "div",
    { class: "tl-ticks" },
    h("span", {}, clock(batch.acceptedAt)),
    h("span", {}, batch.running ? "now" : `+${formatMs(batch.wallMs)}`),
  );
  const axis = h("div", { class: "tl-row tl-axis" }, h("span"), ends, h("span"));
  return h("div", { class: "timeline" }, rows, axis);
}

/**
 * A job as a card: its state, arguments, outcome, what it waited for and who decided it, usage,
 * progress, and what can be done with it. Its duration is the timeline's, in the same words.
 */
export function jobCard(job, actions, now = Date.now()) {
  const active = isActive(job);
  const outcome = job.state === "success" ? (job.result ?? "(no text)") : job.error;
  const waited = waitSegments(job, now)
    .map((w) => ({ reason: w.reason, ms: w.to - w.from }))
    .filter(worthSaying)
    .map((w) => `${formatWait(w.ms)} for ${waitedFor(w.reason)}`);
  const decision = decisionText(job, clock);
  return h(
    "article",
    { class: "job", "data-job": job.job_id },
    h(
      "div",
      { class: "job-head" },
      h("span", { class: "state", "data-state": job.state }, job.state),
      h("span", { class: "tool" }, job.tool_name),
      h("span", { class: "id" }, job.job_id),
      waitingText(job) ? h("span", { class: "waiting muted" }, waitingText(job)) : null,
      h("span", { class: "grow" }),
      h("span", { class: "muted duration" }, job.started_at ? formatMs(runMs(job, now)) : "–"),
      active
        ? h("button", { type: "button", class: "cancel", onclick: () => actions.cancel(job.job_id) }, "Cancel")
        : null,
    ),
    h(
      "dl",
      {},
      h("dt", {}, "args"),
      h("dd", {}, h("pre", {}, JSON.stringify(job.tool_args, null, 2))),
      outcome !== null && outcome !== undefined
        ? [h("dt", {}, job.state === "success" ? "result" : "error"), h("dd", {}, h("pre", {}, outcome))]
        : null,
      failureText(job) ? [h("dt", {}, "why"), h("dd", { class: "failure" }, failureText(job))] : null,
      waited.length ? [h("dt", {}, "waited"), h("dd", { class: "waited" }, waited.join(", then "))] : null,
      decision ? [h("dt", {}, "decided"), h("dd", { class: "decision" }, decision)] : null,
      usageText(job.usage) ? [h("dt", {}, "usage"), h("dd", {}, usageText(job.usage))] : null,
      attemptsText(job) ? [h("dt", {}, "sent"), h("dd", { class: "attempts" }, attemptsText(job))] : null,
      active && job.progress
        ? [
            h("dt", {}, "progress"),
            h(
              "dd",
              { class: "progress" },
              job.progress.total ? h("progress", { max: job.progress.total, value: job.progress.progress }) : null,
              h("span", {}, progressText(job.progress)),
            ),
          ]
        : null,
      job.context_id
        ? [
            h("dt", {}, "child"),
            h(
              "dd",
              {},
              h(
                "button",
                {
                  type: "button",
                  class: "child",
                  title: job.context_id,
                  onclick: () => actions.select(job.context_id),
                },
                actions.childName(job),
              ),
            ),
          ]
        : null,
    ),
  );
}

/** A webhook event still to deliver or given up on: its last answer, and a way to send it again (a pending one now). */
export function deliveryRow(d, actions) {
  const answer = d.last_status === null ? "no answer" : `HTTP ${d.last_status}`;
  const when =
    d.status === "failed"
      ? `failed ${clock(Date.parse(d.failed_at))}`
      : d.next_attempt_at
        ? `next try ${clock(Date.parse(d.next_attempt_at))}`
        : "";
  return h(
    "li",
    { class: "delivery", "data-event": d.id, "data-status": d.status },
    h("span", { class: "state", "data-state": d.status === "failed" ? "error" : "pending" }, d.status),
    h("span", { class: "tool" }, d.type),
    h(
      "span",
      { class: "muted" },
      `seq ${d.seq} · ${d.attempts} attempt${d.attempts === 1 ? "" : "s"} · ${d.attempts ? answer : "not sent yet"}${when ? ` · ${when}` : ""}`,
    ),
    d.last_error ? h("span", { class: "error-text" }, d.last_error) : null,
    h(
      "button",
      {
        type: "button",
        class: "redeliver",
        title: d.status === "pending" ? "Send it now, not at its next try" : "Send it again",
        onclick: () => actions.redeliver(d.id),
      },
      "Redeliver",
    ),
  );
}

const SPEAKERS = { user: "task", assistant: "model", tool: "tool result", system: "system" };

/** A subagent's conversation: each model turn's text and the calls it asked for, with what it took. */
export function transcriptList(messages) {
  return messages.map((m) =>
    h(
      "li",
      { class: `turn ${m.role}` },
      h(
        "div",
        { class: "turn-head" },
        h("strong", {}, SPEAKERS[m.role] ?? m.role),
        h("span", { class: "muted" }, clock(Date.parse(m.at))),
        m.usage ? h("span", { class: "muted" }, usageText(m.usage)) : null,
      ),
      m.content ? h("pre", {}, m.content + (m.content_truncated ? "…" : "")) : null,
      m.tool_calls?.length
        ? h(
            "ul",
            { class: "turn-calls" },
            m.tool_calls.map((c) => h("li", {}, h("code", {}, `${c.name} ${c.arguments}`))),
          )
        : null,
    ),
  );
}
