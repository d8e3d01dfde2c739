/**
 * The dashboard (docs/api.md#dashboard) in a real headless Chromium against `wrangler dev`:
 * sign in, see a chat and its child in the tree, expand it, watch a job go
 * from running to success without reloading, cancel a job, see an MCP tool's
 * progress while it runs. Screenshots go to
 * SCREENSHOT_DIR (`npm run screenshots` points it at docs/screenshots).
 */
import { mkdirSync, mkdtempSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium, type Browser, type Page, type WebSocketRoute } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEverythingMcp } from "../setup/everything-mcp";
import { EMPTY_TENANT_KEY, KEY, startLocalService, type LocalService } from "./local-service";

const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
/** The name every test signs in with: `by` on the decisions it takes. */
const SIGNER = "Ana";
const shots = process.env.SCREENSHOT_DIR ?? mkdtempSync(join(tmpdir(), "fanout-shots-"));

let service: LocalService;
let browser: Browser;
let childId: string;
let subordinateJobId: string;

beforeAll(async () => {
  service = await startLocalService();
  await service.api(
    "/v1/config",
    { llm: { base_url: service.providerUrl, model: "fake", api_key: "sk-local" } },
    "PUT",
  );
  // A support chat that delegated one task: a parent with a child chat in the tree.
  const done = await service.api("/v1/chats/support-42/parallel", {
    tool_calls: [
      { tool_name: "call_subordinate", tool_args: { message: "Check the order status of #1042", reset: true } },
    ],
    timeout: 60,
  });
  childId = done.jobs[0].context_id;
  subordinateJobId = done.jobs[0].job_id;
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-quic",
      "--no-first-run",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await service?.stop();
});

/** A page signed in, failing the test on any script error or CSP violation. */
async function signedIn(
  viewport: { width: number; height: number },
  before: (page: Page) => Promise<void> = async () => {},
  key = KEY,
): Promise<{ page: Page; problems: string[] }> {
  const page = await browser.newPage({ viewport });
  await before(page);
  const problems: string[] = [];
  page.on("pageerror", (e) => problems.push(`page error: ${e.message}`));
  page.on("console", (m) => {
    if (m.type() === "error") problems.push(`console: ${m.text()} (${m.location().url})`);
  });
  await page.goto(service.url);
  await page.fill("#key", key);
  await page.fill("#signer", SIGNER);
  await page.click("#login-form button[type=submit]");
  await page.waitForSelector('#status[data-state="live"]');
  expect(await page.locator("#login").isVisible()).toBe(false);
  return { page, problems };
}

const job = (page: Page, id: string) => page.locator(`article[data-job="${id}"]`);

describe("the dashboard", () => {
  it("shows the chat tree, live job states, and cancels a job", async () => {
    const { page, problems } = await signedIn({ width: 1280, height: 800 });
    expect(await page.evaluate(() => sessionStorage.getItem("fanout.apiKey"))).toBe(KEY);
    expect(page.url()).not.toContain(KEY);

    const pickParent = page.locator('li[data-chat="support-42"] > .node > .pick');
    await pickParent.waitFor();
    const child = page.locator(`li[data-chat="${childId}"]`);
    expect(await child.count()).toBe(0); // collapsed
    await page.getByRole("button", { name: "Expand support-42" }).click();
    await child.waitFor();
    expect(await child.locator(".name").textContent()).toBe("Check the order status of #1042");

    await pickParent.click();
    await page.locator("#chat-title", { hasText: "support-42" }).waitFor();
    // The finished subordinate shows its usage and its log row.
    await job(page, subordinateJobId)
      .locator("dd", { hasText: /^2 model requests · 60 tokens · 1 tool call · 1 subagent$/ })
      .waitFor();
    // Plain words: where the chat sits, how often a call went out, and the child by its task.
    expect(await page.locator("#chat-meta").textContent()).toMatch(
      /^support-42 · top level · \d+ running · \d+ waiting$/,
    );
    expect(await job(page, subordinateJobId).locator(".attempts").textContent()).toBe("1 attempt");
    expect(await job(page, subordinateJobId).locator("button.child").textContent()).toBe(
      "Check the order status of #1042",
    );
    await page.locator("#log li", { hasText: "Using tool 'call_subordinate'" }).waitFor();

    // A job started elsewhere shows up and finishes on screen without a reload.
    const quick = await service.api("/v1/chats/support-42/parallel", {
      tool_calls: [{ tool_name: "wait", tool_args: { seconds: 2, note: "<img src=x onerror=alert(1)>" } }],
      wait: false,
    });
    const quickId = quick.jobs[0].job_id;
    await job(page, quickId).locator('.state[data-state="running"]').waitFor({ timeout: 15_000 });
    await pickParent.locator(".dot.live").waitFor();
    await job(page, quickId).locator('.state[data-state="success"]').waitFor({ timeout: 15_000 });
    // Job data is text: the markup in its arguments is shown, never parsed.
    expect(await job(page, quickId).locator("img").count()).toBe(0);
    expect(await job(page, quickId).locator("pre").first().textContent()).toContain("<img src=x onerror=alert(1)>");

    // Cancel from the page.
    const slow = await service.api("/v1/chats/support-42/parallel", {
      tool_calls: [{ tool_name: "wait", tool_args: { seconds: 300 } }],
      wait: false,
    });
    const slowId = slow.jobs[0].job_id;
    await job(page, slowId).locator("button.cancel").click({ timeout: 15_000 });
    await job(page, slowId).locator('.state[data-state="cancelled"]').waitFor({ timeout: 15_000 });
    const state = await service.api(`/v1/chats/support-42/jobs/${slowId}`);
    expect(state.state).toBe("cancelled");

    expect(problems).toEqual([]);
    await page.close();
  }, 120_000);

  it("draws a batch's timeline: a bar per job in call order, as long as its run", async () => {
    // Four calls side by side, each a different length, ended by the chat's own timers.
    const seconds = [0.4, 1.2, 0.8, 1.6];
    const batch = await service.api("/v1/chats/timeline-1/parallel", {
      tool_calls: seconds.map((s) => ({ tool_name: "wait", tool_args: { seconds: s } })),
      timeout: 30,
    });
    expect(batch.status).toBe("success");
    const ids: string[] = batch.jobs.map((j: { job_id: string }) => j.job_id);
    const records = await Promise.all(ids.map((id) => service.api(`/v1/chats/timeline-1/jobs/${id}`)));
    const t = (iso: string) => Date.parse(iso);
    const acceptedAt = Math.min(...records.map((r) => t(r.created_at)));
    const wall = Math.max(...records.map((r) => t(r.completed_at))) - acceptedAt;

    const { page, problems } = await signedIn({ width: 1280, height: 800 });
    await page.locator('li[data-chat="timeline-1"] > .node > .pick').click({ timeout: 15_000 });
    const section = page.locator(`section.batch[data-batch="${records[0].batch_id}"]`);
    await section.waitFor();
    expect(await section.locator(".summary").textContent()).toMatch(
      /^4 success · wall [\d.]+ s · sum [\d.]+ s · [\d.]+× faster than one after another$/,
    );
    const rows = section.locator(".tl-row[data-job]");
    expect(await rows.evaluateAll((els) => els.map((el) => el.getAttribute("data-job")))).toEqual(ids);
    // Each bar spans its job's claim to its end on the batch's axis (accepted → last end), to 0.5 %.
    for (const [i, record] of records.entries()) {
      const run = rows.nth(i).locator("rect.run");
      const [x, width] = await Promise.all([run.getAttribute("x"), run.getAttribute("width")]);
      expect(parseFloat(x!)).toBeCloseTo(((t(record.started_at) - acceptedAt) / wall) * 100, 0);
      expect(parseFloat(width!)).toBeCloseTo(((t(record.completed_at) - t(record.started_at)) / wall) * 100, 0);
    }
    // Hovering a row gives the exact times: accepted at, then claimed and ended after the batch began.
    expect(await rows.first().getAttribute("title")).toMatch(
      /^#0 wait · success · accepted \d\d:\d\d:\d\d\.\d{3} · claimed \+[\d.]+ m?s · ended \+[\d.]+ m?s$/,
    );
    // Their lengths keep the calls' order of length: 0.4 < 0.8 < 1.2 < 1.6 s.
    const widths = await rows
      .locator("rect.run")
      .evaluateAll((els) => els.map((el) => parseFloat(el.getAttribute("width")!)));
    expect([widths[0]!, widths[2]!, widths[1]!, widths[3]!]).toEqual([...widths].sort((a, b) => a - b));

    mkdirSync(shots, { recursive: true });
    await page.screenshot({ path: join(shots, "dashboard-desktop.png") });
    expect(problems).toEqual([]);
    await page.close();
  }, 60_000);

  it("filters a chat's jobs by state and tool, and searches chats", async () => {
    const { page, problems } = await signedIn({ width: 1280, height: 800 });
    await page.locator('li[data-chat="support-42"] > .node > .pick').click({ timeout: 15_000 });
    await job(page, subordinateJobId).waitFor();
    const cards = page.locator("#jobs article.job");
    const all = await cards.count();
    expect(all).toBeGreaterThanOrEqual(3); // the subordinate, the finished wait, the cancelled wait

    await page.selectOption("#filter-tool", "call_subordinate");
    expect(await cards.evaluateAll((els) => els.map((el) => el.getAttribute("data-job")))).toEqual([subordinateJobId]);
    // A subordinate's row on the timeline opens its child chat.
    await page.locator(`.tl-row.opens[data-job="${subordinateJobId}"]`).click();
    await page.locator("#chat-title", { hasText: "Check the order status of #1042" }).waitFor();
    await page.locator('li[data-chat="support-42"] > .node > .pick').click();
    await job(page, subordinateJobId).waitFor();
    await page.selectOption("#filter-tool", "");
    await page.selectOption("#filter-state", "cancelled");
    await expect.poll(() => cards.locator(".state").allTextContents()).toEqual(["cancelled"]);
    // an error reads as its text
    expect(await cards.locator("dd pre").last().textContent()).toBe("Parallel job was cancelled.");
    // and says why, and whether it is safe to run again (docs/api.md#why-a-job-failed)
    expect(await cards.locator("dd.failure").textContent()).toBe("cancelled · not to be run again as it is");
    await page.selectOption("#filter-state", "timeout");
    await page.locator("#jobs p", { hasText: "No jobs match these filters." }).waitFor();
    await page.selectOption("#filter-state", "");
    expect(await cards.count()).toBe(all);

    const roots = () => page.locator("#tree > li").evaluateAll((els) => els.map((el) => el.getAttribute("data-chat")));
    expect(await roots()).toEqual(expect.arrayContaining(["support-42", "timeline-1"]));
    await page.fill("#chat-search", "TIMELINE");
    expect(await roots()).toEqual(["timeline-1"]);
    await page.fill("#chat-search", "no such chat");
    await page.locator("#no-match").waitFor();
    expect(await roots()).toEqual([]);
    await page.fill("#chat-search", "");
    expect(await roots()).toEqual(expect.arrayContaining(["support-42", "timeline-1"]));
    expect(problems).toEqual([]);
    await page.close();
  }, 60_000);

  it("lists chats by last activity, with running counts, in the same order live and after a reload", async () => {
    const { page, problems } = await signedIn({ width: 1280, height: 800 });
    const roots = () => page.locator("#tree > li").evaluateAll((els) => els.map((el) => el.getAttribute("data-chat")));
    await page.locator("#tree > li").first().waitFor();
    const before = await roots();
    expect(before.length).toBeGreaterThanOrEqual(2);
    // The least recently active chat gets a job: it moves to the top while the page is open.
    const last = before.at(-1)!;
    await service.api(`/v1/chats/${last}/parallel`, {
      tool_calls: [{ tool_name: "wait", tool_args: { seconds: 3 } }],
      wait: false,
    });
    const node = page.locator(`#tree > li[data-chat="${last}"] > .node`);
    await node.locator(".count", { hasText: "1 running" }).waitFor({ timeout: 15_000 });
    const live = [last, ...before.filter((id) => id !== last)];
    await expect.poll(roots).toEqual(live);
    await node.locator(".count").waitFor({ state: "detached", timeout: 15_000 });
    expect(await node.locator(".when").textContent()).toBe("just now");
    await page.reload();
    await page.waitForSelector('#status[data-state="live"]');
    await expect.poll(roots).toEqual(live);
    expect(problems).toEqual([]);
    await page.close();
  }, 60_000);

  it("lists a chat's failed and pending deliveries, redelivers each, and sends a test event", async () => {
    // A real receiver: it refuses the first delivery with a 400 (a failure at once), then takes all
    // but, while `busy`, a chat.idle of chat hooks-2 (a 503: it stays pending, retried later).
    const received: { id: string; type: string; chat?: string }[] = [];
    let busy = false;
    const receiver = createServer((req, res) => {
      let body = "";
      req.on("data", (c) => (body += c));
      req.on("end", () => {
        const event = JSON.parse(body);
        received.push({ id: String(req.headers["webhook-id"]), type: event.type, chat: event.data?.chat_id });
        const held = busy && event.type === "chat.idle" && event.data?.chat_id === "hooks-2";
        res.writeHead(received.length === 1 ? 400 : held ? 503 : 200).end();
      });
    });
    await new Promise<void>((r) => receiver.listen(0, "127.0.0.1", r));
    const hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
    try {
      await service.api("/v1/config", { webhook: { url: hookUrl } }, "PATCH");
      await service.api("/v1/chats/hooks-1/parallel", {
        tool_calls: [{ tool_name: "wait", tool_args: { seconds: 0.1 } }],
        timeout: 10,
      });
      await expect.poll(() => received.length, { timeout: 15_000 }).toBeGreaterThanOrEqual(2);

      const { page, problems } = await signedIn({ width: 1280, height: 800 });
      await page.locator('li[data-chat="hooks-1"] > .node > .pick').click({ timeout: 15_000 });
      const failed = page.locator('#deliveries li[data-status="failed"]');
      await failed.waitFor({ timeout: 15_000 });
      expect(await failed.count()).toBe(1);
      const eventId = (await failed.getAttribute("data-event"))!;
      expect(eventId).toBe(received[0]!.id);
      expect(await failed.textContent()).toContain("HTTP 400");

      await failed.locator("button.redeliver").click();
      // The receiver sees the same event id again, and the page no longer lists it as failed.
      await expect.poll(() => received.filter((r) => r.id === eventId).length, { timeout: 15_000 }).toBe(2);
      await page.reload();
      await page.waitForSelector('#status[data-state="live"]');
      await page.locator('li[data-chat="hooks-1"] > .node > .pick').click();
      await page
        .locator("#deliveries li", { hasText: "No pending or failed deliveries." })
        .waitFor({ timeout: 15_000 });

      await page.click("#webhook-test");
      await page.locator("#webhook-test-result", { hasText: /^HTTP 200 in \d+ ms$/ }).waitFor({ timeout: 15_000 });
      expect(received.at(-1)!.type).toBe("webhook.test");

      // Refused twice, an event waits 5 min for its next try; Redeliver sends it now.
      busy = true;
      await service.api("/v1/chats/hooks-2/parallel", {
        tool_calls: [{ tool_name: "wait", tool_args: { seconds: 0.1 } }],
        timeout: 10,
      });
      const idle = () => received.filter((r) => r.type === "chat.idle" && r.chat === "hooks-2");
      await expect.poll(() => idle().length, { timeout: 20_000 }).toBe(2);
      busy = false;
      await page.locator('li[data-chat="hooks-2"] > .node > .pick').click({ timeout: 15_000 });
      const pending = page.locator(`#deliveries li[data-status="pending"][data-event="${idle()[0]!.id}"]`);
      await pending.waitFor({ timeout: 15_000 });
      expect(await pending.textContent()).toContain("HTTP 503");
      await pending.locator("button.redeliver").click();
      await expect.poll(() => idle().length, { timeout: 15_000 }).toBe(3);
      expect(problems).toEqual([]);
      await page.close();
    } finally {
      await service.api("/v1/config", { webhook: null }, "PATCH").catch(() => {});
      receiver.close();
    }
  }, 90_000);

  it("shows a running MCP tool's progress on its job, and none once it has finished", async () => {
    const everything = await startEverythingMcp();
    try {
      await service.api(
        "/v1/config",
        {
          llm: { base_url: service.providerUrl, model: "fake", api_key: "sk-local" },
          mcp_servers: [{ name: "everything", url: everything.url, headers: {} }],
        },
        "PUT",
      );
      const { page, problems } = await signedIn({ width: 1280, height: 800 });
      const started = await service.api("/v1/chats/reports-7/parallel", {
        tool_calls: [{ tool_name: "everything__trigger-long-running-operation", tool_args: { duration: 6, steps: 6 } }],
        wait: false,
      });
      const jobId = started.jobs[0].job_id;
      await page.locator('li[data-chat="reports-7"] > .node > .pick').click({ timeout: 15_000 });
      const progress = job(page, jobId).locator("dd.progress");
      await progress.filter({ hasText: /^\d \/ 6$/ }).waitFor({ timeout: 15_000 });
      // A bar beside the numbers, filled as far as they say.
      const bar = progress.locator("progress");
      expect(await bar.getAttribute("max")).toBe("6");
      expect(Number(await bar.getAttribute("value"))).toBeGreaterThanOrEqual(1);
      await job(page, jobId).locator('.state[data-state="success"]').waitFor({ timeout: 20_000 });
      expect(await progress.count()).toBe(0);
      expect(problems).toEqual([]);
      await page.close();
    } finally {
      await everything.stop();
    }
  }, 60_000);

  it("resumes a lost connection without showing anything twice", async () => {
    // The tenant stream goes through a route the test can cut, as a network drop would.
    const sockets: WebSocketRoute[] = [];
    const { page, problems } = await signedIn({ width: 1280, height: 800 }, (p) =>
      p.routeWebSocket(/\/v1\/events/, (ws) => {
        ws.connectToServer();
        sockets.push(ws);
      }),
    );
    await page.locator('li[data-chat="support-42"] > .node > .pick').click({ timeout: 15_000 });
    await job(page, subordinateJobId).waitFor();
    const cards = page.locator("#jobs article.job");
    const logRows = page.locator("#log li");
    const [cardsBefore, rowsBefore] = [await cards.count(), await logRows.count()];

    await sockets.at(-1)!.close({ code: 1006, reason: "network lost" });
    await page.locator('#status[data-state="reconnecting"]').waitFor();
    // Meanwhile a job starts and ends: the stream resumes after the last event it saw.
    const missed = await service.api("/v1/chats/support-42/parallel", {
      tool_calls: [{ tool_name: "wait", tool_args: { seconds: 0.1, missed: true } }],
      timeout: 10,
    });
    const missedId = missed.jobs[0].job_id;
    await page.waitForSelector('#status[data-state="live"]', { timeout: 15_000 });
    expect(sockets.length).toBe(2);
    await job(page, missedId).locator('.state[data-state="success"]').waitFor({ timeout: 15_000 });
    expect(await job(page, missedId).count()).toBe(1);
    expect(await cards.count()).toBe(cardsBefore + 1);
    expect(await logRows.count()).toBe(rowsBefore + 1);
    expect(problems).toEqual([]);
    await page.close();
  }, 60_000);

  it("opens a chat of 500 jobs at once and pages its older jobs", async () => {
    const batches = 63; // 504 jobs, 8 at a time
    for (let b = 0; b < batches; b++) {
      await service.api("/v1/chats/big-500/parallel", {
        tool_calls: Array.from({ length: 8 }, (_, i) => ({ tool_name: "wait", tool_args: { seconds: 0.01, b, i } })),
        timeout: 30,
      });
    }
    const { page, problems } = await signedIn({ width: 1280, height: 800 });
    const pick = page.locator('li[data-chat="big-500"] > .node > .pick');
    await pick.waitFor({ timeout: 15_000 });
    const t0 = performance.now();
    await pick.click();
    await page.locator("section.batch").first().waitFor();
    const firstScreenMs = performance.now() - t0;
    console.log(`a chat of ${batches * 8} jobs: first screen in ${firstScreenMs.toFixed(0)} ms`);
    expect(firstScreenMs).toBeLessThan(5_000); // reported above; 1 s is the aim on this machine
    const cards = page.locator("#jobs article.job");
    expect(await cards.count()).toBe(24);
    await page.click("#older", { timeout: 1_000 }).catch(async () => {
      throw new Error(`no "Show older" button: ${await page.locator("#jobs").textContent()}`);
    });
    await expect.poll(() => cards.count(), { timeout: 15_000 }).toBe(48);
    expect(await page.locator("#older").textContent()).toBe(`Show older jobs (${batches * 8 - 48} more)`);
    expect(problems).toEqual([]);
    await page.close();
  }, 120_000);

  it("is usable on a phone-sized screen: the list or a chat, one tap apart", async () => {
    // A long unbroken argument must wrap, not widen the page.
    await service.api("/v1/chats/support-42/parallel", {
      tool_calls: [{ tool_name: "wait", tool_args: { seconds: 0.01, token: "x".repeat(300) } }],
      timeout: 10,
    });
    await service.api("/v1/chats/phone-2/parallel", {
      tool_calls: [{ tool_name: "wait", tool_args: { seconds: 0.01 } }],
      timeout: 10,
    });
    const { page, problems } = await signedIn({ width: 390, height: 844 });
    const list = page.locator("nav.chats");
    // The list is whole: no row cut off by a box of its own that scrolls.
    expect(await list.evaluate((el) => el.scrollHeight <= el.clientHeight + 1)).toBe(true);
    await page.locator('li[data-chat="support-42"] > .node > .pick').click();
    await page.locator("#chat-title", { hasText: "support-42" }).waitFor();
    // The picked chat alone, its jobs first on the screen.
    expect(await list.isVisible()).toBe(false);
    expect((await page.locator("#chat-title").boundingBox())!.y).toBeLessThan(200);
    // Nothing scrolls sideways.
    const wide = await page.evaluate(() =>
      [...document.querySelectorAll("body *")]
        .filter((el) => el.getBoundingClientRect().right > document.documentElement.clientWidth + 1)
        .map((el) => `${el.tagName.toLowerCase()}.${el.className}`),
    );
    expect(wide).toEqual([]);
    await page.screenshot({ path: join(shots, "dashboard-phone.png"), fullPage: false });
    // Far down the chat, one tap goes back to the list, which shows the chat still picked.
    await page.mouse.wheel(0, 5000);
    await page.click("#to-chats");
    expect(await list.isVisible()).toBe(true);
    expect(await page.locator("#chat").isVisible()).toBe(false);
    expect(await page.locator('li[data-chat="support-42"] > .node > .pick').getAttribute("aria-current")).toBe("true");
    await page.locator('li[data-chat="phone-2"] > .node > .pick').click();
    await page.locator("#chat-title", { hasText: "phone-2" }).waitFor();
    expect(problems).toEqual([]);
    await page.close();
  }, 60_000);

  it("before sign-in shows no connection state, and on this machine the local dev key", async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    await page.goto(service.url);
    await page.locator("#login").waitFor();
    expect(await page.locator("#status").isVisible()).toBe(false);
    expect(await page.locator("#local-hint").textContent()).toBe(
      "Running fanout with npm start? Its local dev key is fanout-local-dev-key.",
    );
    await page.fill("#key", KEY);
    await page.click("#login-form button[type=submit]");
    // A name is asked for too (it becomes `by` on the decisions taken here): without one, no sign-in.
    expect(await page.locator("#signer:invalid").count()).toBe(1);
    expect(await page.locator("#login").isVisible()).toBe(true);
    await page.fill("#signer", SIGNER);
    await page.click("#login-form button[type=submit]");
    await page.waitForSelector('#status[data-state="live"]');
    await page.click("#sign-out");
    await page.locator("#login").waitFor();
    expect(await page.locator("#status").isVisible()).toBe(false);
    expect(await page.inputValue("#key")).toBe("");
    await page.close();
  }, 60_000);

  it("tells a tenant without chats how to start one", async () => {
    const { page, problems } = await signedIn({ width: 1280, height: 800 }, async () => {}, EMPTY_TENANT_KEY);
    await page.locator("#no-chats").waitFor();
    expect(await page.locator("#no-chats").textContent()).toContain("POST /v1/chats/{chat}/parallel");
    expect(await page.locator("#tree > li").count()).toBe(0);
    expect(await page.locator("#pick").isVisible()).toBe(true);
    expect(problems).toEqual([]);
    await page.close();
  }, 60_000);

  it("says why a job waits and what each flow rule holds back, live", async () => {
    await service.api("/v1/config", { flow: [{ name: "one-wait", tools: ["wait"], concurrency: 1 }] }, "PATCH");
    try {
      const batch = await service.api("/v1/chats/flow-1/parallel", {
        tool_calls: [
          { tool_name: "wait", tool_args: { seconds: 300 } },
          { tool_name: "wait", tool_args: { seconds: 300 } },
        ],
        wait: false,
      });
      const ids: string[] = batch.jobs.map((j: { job_id: string }) => j.job_id);
      const records = await (async () => {
        for (;;) {
          const now = await Promise.all(ids.map((id) => service.api(`/v1/chats/flow-1/jobs/${id}`)));
          if (now.some((r) => r.state === "running")) return now;
          await new Promise((r) => setTimeout(r, 100));
        }
      })();
      const held = records.find((r) => r.waiting_for === "flow")!;
      expect(held).toMatchObject({ state: "pending", flow: { rule: "one-wait" } });

      const { page, problems } = await signedIn({ width: 1280, height: 800 });
      const rule = page.locator('#flow li[data-rule="one-wait"]');
      await rule.locator(".figures", { hasText: "1 running · 1 queued" }).waitFor({ timeout: 15_000 });
      await page.locator('li[data-chat="flow-1"] > .node > .pick').click();
      await job(page, held.job_id)
        .locator(".waiting", { hasText: "waiting for flow slot: one-wait" })
        .waitFor({ timeout: 15_000 });
      await page.screenshot({ path: join(shots, "dashboard-flow.png") });

      // Cancelling the running call gives its slot to the waiting one: the card and the panel follow without a reload.
      const running = records.find((r) => r.state === "running")!;
      await job(page, running.job_id).locator("button.cancel").click();
      await job(page, held.job_id).locator('.state[data-state="running"]').waitFor({ timeout: 15_000 });
      expect(await job(page, held.job_id).locator(".waiting").count()).toBe(0);
      await rule.locator(".figures", { hasText: "1 running · 0 queued" }).waitFor({ timeout: 15_000 });
      await job(page, held.job_id).locator("button.cancel").click();
      await rule.locator(".figures", { hasText: "0 running · 0 queued" }).waitFor({ timeout: 15_000 });
      expect(problems).toEqual([]);
      await page.close();
    } finally {
      await service.api("/v1/config", { flow: [] }, "PATCH");
    }
  }, 90_000);

  it("lists the calls waiting for a person across the tenant, and approves or denies one with a reason", async () => {
    await service.api("/v1/config", { approvals: [{ tools: ["wait"], timeout_seconds: 3600 }] }, "PATCH");
    try {
      const started = await service.api("/v1/chats/appr-ui/parallel", {
        tool_calls: [
          { tool_name: "wait", tool_args: { seconds: 0.01, note: "first" } },
          { tool_name: "wait", tool_args: { seconds: 0.01, note: "second" } },
        ],
        wait: false,
      });
      const [first, second] = started.jobs.map((j: { job_id: string }) => j.job_id);
      const { page, problems } = await signedIn({ width: 1280, height: 800 });
      const entry = (id: string) => page.locator(`#approvals li[data-job="${id}"]`);
      await entry(first).waitFor({ timeout: 15_000 });
      await entry(second).waitFor({ timeout: 15_000 });
      expect(await entry(first).locator("strong").textContent()).toBe("wait");
      expect(await entry(first).locator("pre").textContent()).toContain('"note": "first"');
      expect(await entry(first).textContent()).toContain("asked by the bot's agent in appr-ui");
      await page.locator('li[data-chat="appr-ui"] > .node > .pick').click();
      await job(page, first).locator(".waiting", { hasText: "waiting for approval" }).waitFor({ timeout: 15_000 });
      await page.screenshot({ path: join(shots, "dashboard-approvals.png") });

      await entry(second).locator("input.reason").fill("not this one");
      await entry(second).locator("button.deny").click();
      await entry(second).waitFor({ state: "detached", timeout: 15_000 });
      await job(page, second)
        .locator("pre", { hasText: "The call was denied by Ana: not this one." })
        .waitFor({ timeout: 15_000 });
      await entry(first).locator("button.approve").click();
      await entry(first).waitFor({ state: "detached", timeout: 15_000 });
      await job(page, first).locator('.state[data-state="success"]').waitFor({ timeout: 15_000 });
      expect(await page.locator("#approvals-panel").isVisible()).toBe(false);
      expect(problems).toEqual([]);
      await page.close();
    } finally {
      await service.api("/v1/config", { approvals: [] }, "PATCH");
    }
  }, 90_000);

  it("says what a call waits for, who decided it and why, and what its batch waited for, in the same words everywhere", async () => {
    await service.api("/v1/config", { approvals: [{ tools: ["call_subordinate"], timeout_seconds: 3600 }] }, "PATCH");
    try {
      const started = await service.api("/v1/chats/words-1/parallel", {
        tool_calls: [
          { tool_name: "call_subordinate", tool_args: { message: "Send the postcard to Ana", reset: true } },
          { tool_name: "wait", tool_args: { seconds: 0.01 } },
        ],
        wait: false,
      });
      const [held, quick] = started.jobs.map((j: { job_id: string }) => j.job_id);
      const { page, problems } = await signedIn({ width: 1280, height: 800 });
      await page.locator('li[data-chat="words-1"] > .node > .pick').click();
      await job(page, quick).locator('.state[data-state="success"]').waitFor({ timeout: 15_000 });
      // A chat whose only active call waits for a person is not running: it waits.
      await page.locator("#chat-meta", { hasText: "0 running · 1 waiting" }).waitFor({ timeout: 15_000 });
      await page
        .locator('li[data-chat="words-1"] > .node .count', { hasText: "0 running · 1 waiting" })
        .waitFor({ timeout: 15_000 });
      // Its bar is an approval wait, and no log row says the call was made.
      const row = page.locator(`.tl-row[data-job="${held}"]`);
      await row.locator('rect.wait[data-wait="approval"]').waitFor({ state: "attached", timeout: 15_000 });
      await page.locator("#log li", { hasText: "Tool 'call_subordinate' waits for approval" }).waitFor();
      expect(await page.locator("#log li", { hasText: "Using tool 'call_subordinate'" }).count()).toBe(0);
      await page.waitForTimeout(1500); // a wait a person would notice
      await page.screenshot({ path: join(shots, "dashboard-waiting.png") });

      const entry = page.locator(`#approvals li[data-job="${held}"]`);
      await entry.locator("input.reason").fill("looks fine");
      await entry.locator("button.approve").click();
      await job(page, held).locator('.state[data-state="success"]').waitFor({ timeout: 30_000 });
      // Who decided (the name given at sign-in), when, and why.
      expect(await job(page, held).locator(".decision").textContent()).toMatch(
        /^approved by Ana at \d{2}:\d{2}:\d{2}\.\d{3}: looks fine$/,
      );
      expect(await job(page, held).locator(".waited").textContent()).toMatch(/^\d\.\d s for approval$/);
      // The batch's time went to the wait: it says so, not a speed-up below 1×.
      const head = page.locator("section.batch .summary", { hasText: "waited" }).first();
      await head.waitFor({ timeout: 15_000 });
      expect(await head.textContent()).toMatch(/· waited \d\.\d s for approval$/);
      expect(await head.textContent()).not.toContain("faster");
      await page.locator("#log li", { hasText: "Using tool 'call_subordinate'" }).waitFor({ timeout: 15_000 });
      // The card and the timeline say the same duration.
      expect(await job(page, held).locator(".duration").textContent()).toBe(
        await row.locator(".tl-time").textContent(),
      );
      // The approval bar is labelled with what it waited for, and the record keeps it.
      expect(await row.locator(".wait-label").first().textContent()).toBe("approval");
      const record = await service.api(`/v1/chats/words-1/jobs/${held}`);
      expect(record.approval).toMatchObject({ status: "approved", by: SIGNER, reason: "looks fine" });
      expect(record.waited.map((w: { for: string }) => w.for)).toEqual(["approval"]);
      await page.screenshot({ path: join(shots, "dashboard-waits.png") });
      expect(problems).toEqual([]);
      await page.close();
    } finally {
      await service.api("/v1/config", { approvals: [] }, "PATCH");
    }
  }, 90_000);

  it("shows a batch's usage, and a subagent's transcript with each model turn's usage", async () => {
    const { page, problems } = await signedIn({ width: 1280, height: 800 });
    await page.locator('li[data-chat="support-42"] > .node > .pick').click();
    await page.locator("#chat-title", { hasText: "support-42" }).waitFor();
    const subordinateBatch = page.locator("section.batch", {
      has: page.locator(`article[data-job="${subordinateJobId}"]`),
    });
    expect(await subordinateBatch.locator(".batch-head .usage").textContent()).toBe(
      "2 model requests · 60 tokens · 1 tool call · 1 subagent",
    );
    await job(page, subordinateJobId).locator("button.child").click();
    await page.locator("#transcript-box").waitFor();
    expect(await page.locator("#chat-meta").textContent()).toBe(
      `${childId} · subagent, depth 1 · started by support-42 · 0 running · 0 waiting`,
    );
    const turns = page.locator("#transcript > li");
    expect(await turns.first().locator("strong").textContent()).toBe("task");
    expect(await turns.first().locator("pre").textContent()).toBe("Check the order status of #1042");
    const models = page.locator("#transcript > li.assistant");
    expect(await models.count()).toBe(2);
    expect(await models.first().locator(".turn-head").textContent()).toContain("1 model request · 30 tokens");
    await page.screenshot({ path: join(shots, "dashboard-transcript.png") });
    expect(problems).toEqual([]);
    await page.close();
  }, 60_000);

  it("reruns a finished batch's failed calls that are safe to run again, from the batch's button, and shows the spend", async () => {
    // A read-only lookup whose service is down at first: the batch ends with it `error`, retryable.
    let down = true;
    const lookup = createServer((req, res) => {
      req.resume();
      req.on("end", () =>
        down
          ? res.writeHead(503).end("busy")
          : res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ result: "found" })),
      );
    });
    await new Promise<void>((resolve) => lookup.listen(0, "127.0.0.1", resolve));
    const url = `http://127.0.0.1:${(lookup.address() as AddressInfo).port}/lookup`;
    const tools = [
      { name: "lookup", description: "Looks it up", url, parameters: { type: "object" }, read_only: true },
    ];
    // A spending limit too: the Spending panel shows the tenant's calls against it.
    await service.api("/v1/config", { tools, limits: { spend: { period: "day", tool_calls: 100 } } }, "PATCH");
    try {
      const first = await service.api("/v1/chats/rerun-ui/parallel", {
        tool_calls: [
          { tool_name: "lookup", tool_args: { q: "order 1042" } },
          { tool_name: "wait", tool_args: { seconds: 0.01 } },
        ],
        job_timeout: 2,
        timeout: 20,
      });
      expect(first.jobs[0]).toMatchObject({ state: "error", error_type: "http_status", retryable: true });
      down = false;
      const { page, problems } = await signedIn({ width: 1280, height: 800 });
      await page.locator('li[data-chat="rerun-ui"] > .node > .pick').click({ timeout: 15_000 });
      const button = page.locator("section.batch button.rerun");
      await button.waitFor({ timeout: 15_000 });
      expect(await button.textContent()).toBe("Rerun failed (1)");
      await button.click();
      // A new batch, newest first: the lookup alone, run again, and it answers now.
      await expect.poll(() => page.locator("section.batch").count(), { timeout: 15_000 }).toBe(2);
      const rerun = page.locator("section.batch").first();
      await rerun.locator('.state[data-state="success"]').first().waitFor({ timeout: 15_000 });
      expect(await rerun.locator("article.job .tool").allTextContents()).toEqual(["lookup"]);
      expect(await rerun.locator("button.rerun").count()).toBe(0);
      const record = await service.api(
        `/v1/chats/rerun-ui/jobs/${await rerun.locator("article.job").getAttribute("data-job")}`,
      );
      expect(record.rerun_of).toBe(first.jobs[0].job_id);
      // Two calls made (a call counts once, however often it was sent), of the day's 100.
      const spend = page.locator('#spend li[data-field="tool_calls"]');
      await spend.locator(".figures", { hasText: "tool_calls 2 of 100" }).waitFor({ timeout: 15_000 });
      expect(await page.locator("#spend-period").textContent()).toBe("today (UTC)");
      expect(await spend.locator("progress").getAttribute("value")).toBe("0.02");
      await page.screenshot({ path: join(shots, "dashboard-rerun.png") });
      expect(problems).toEqual([]);
      await page.close();
    } finally {
      await service.api("/v1/config", { tools: [], limits: { spend: null } }, "PATCH");
      lookup.close();
    }
  }, 90_000);

  it("signs out and forgets the key", async () => {
    const { page } = await signedIn({ width: 1280, height: 800 });
    await page.click("#sign-out");
    await page.locator("#login").waitFor();
    expect(await page.locator("#app").isVisible()).toBe(false);
    expect(await page.evaluate(() => sessionStorage.getItem("fanout.apiKey"))).toBeNull();
    await page.close();
  }, 60_000);
});
