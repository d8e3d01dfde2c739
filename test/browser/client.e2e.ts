/**
 * @fanout/client in a real headless Chromium against `wrangler dev`: the
 * package is bundled as a browser app would bundle it (vite), loaded into a
 * page served from fanout's origin, and used there: open the chat's event stream
 * over a ticket (browsers cannot send an Authorization header on a WebSocket),
 * start a batch at once and see every event of it, await, and verify a webhook
 * signature with WebCrypto.
 */
import { fileURLToPath } from "node:url";
import { chromium, type Browser } from "playwright-core";
import { build } from "vite";
import { afterAll, beforeAll, expect, it } from "vitest";
import { KEY, startLocalService, type LocalService } from "./local-service";

const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const ENTRY = fileURLToPath(new URL("../../packages/client/src/index.ts", import.meta.url));

let service: LocalService;
let browser: Browser;
let bundle: string;

beforeAll(async () => {
  const [started, output] = await Promise.all([
    startLocalService(),
    build({
      logLevel: "silent",
      configFile: false,
      build: {
        write: false,
        minify: false,
        lib: { entry: ENTRY, formats: ["iife"], name: "fanoutClient", fileName: "client" },
      },
    }),
  ]);
  service = started;
  const chunks = (Array.isArray(output) ? output : [output]).flatMap((o) => ("output" in o ? o.output : []));
  bundle = chunks.map((c) => ("code" in c ? c.code : "")).join("\n");
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run"],
  });
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await service?.stop();
});

it("runs in a browser: a stream opened before a batch sees all of it, over a ticket; an await; a webhook check", async () => {
  const page = await browser.newPage();
  const problems: string[] = [];
  page.on("pageerror", (e) => problems.push(e.message));
  const refusedHandshakes: string[] = [];
  page.on("console", (m) => {
    // The browser's own favicon request is not the client's doing.
    if (m.type() !== "error" || m.location().url.endsWith("/favicon.ico")) return;
    // A chat's stream answers 404 until its first job: the client asks whether the chat exists and tries
    // again, and the browser logs each 404 it gets on the way.
    const refused = /^WebSocket connection to '.*\/events\?ticket=.*' failed: .*Unexpected response code: 404/.test(
      m.text(),
    );
    const probed =
      m.text().startsWith("Failed to load resource: the server responded with a status of 404") &&
      /\/v1\/chats\/browser-\d+$/.test(m.location().url);
    if (refused || probed) refusedHandshakes.push(m.text());
    else problems.push(`${m.text()} (${m.location().url})`);
  });
  // A page of fanout's own origin, as a dashboard built on the client would be (/healthz: no CSP to
  // refuse the injected bundle; a page faked by the test would not count as local to Chromium).
  await page.goto(`${service.url}/healthz`);
  await page.addScriptTag({ content: bundle });

  const outcome = await page.evaluate(async (key) => {
    const { Fanout, verifyWebhook } = (window as any).fanoutClient; // the bundle's global
    const fanout = new Fanout({ url: location.origin, apiKey: key });
    const chat = `browser-${Date.now()}`;
    // Opened first, with no cursor: once it resolves, the batch started right after is seen whole.
    const stream = await fanout.events(chat);
    const call = { tool_name: "wait", tool_args: { seconds: 0.2 } };
    const started = await fanout.parallel(chat, { tool_calls: [call, call], wait: false });
    const done = await fanout.awaitJobs(
      chat,
      started.jobs.map((j: any) => j.job_id),
      { timeoutSeconds: 20 },
    );
    const types: string[] = [];
    const seqs: number[] = [];
    for await (const event of stream) {
      types.push(event.type);
      seqs.push(event.data.seq);
      if (event.type === "batch.finished") break;
    }
    // A Standard Webhooks signature made here with WebCrypto, checked by the client's helper.
    const secret = `whsec_${btoa("browser-test-secret-0123456789ab")}`;
    const raw = Uint8Array.from(atob(secret.slice(6)), (c) => c.charCodeAt(0));
    const hmac = await crypto.subtle.importKey("raw", raw, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
    const ts = String(Math.floor(Date.now() / 1000));
    const body = '{"id":"evt_1"}';
    const mac = new Uint8Array(await crypto.subtle.sign("HMAC", hmac, new TextEncoder().encode(`evt_1.${ts}.${body}`)));
    const headers = {
      "webhook-id": "evt_1",
      "webhook-timestamp": ts,
      "webhook-signature": `v1,${btoa(String.fromCharCode(...mac))}`,
    };
    return {
      status: done.status,
      types,
      seqs,
      valid: await verifyWebhook(secret, headers, body),
      forged: await verifyWebhook(secret, headers, `${body} `),
    };
  }, KEY);

  expect(problems).toEqual([]);
  // the open and its probe, perhaps a retry before the first job
  expect(refusedHandshakes.length).toBeLessThanOrEqual(4);
  expect(outcome.status).toBe("success");
  expect(outcome.types[0]).toBe("chat.created");
  expect([...outcome.types].sort()).toEqual([
    "batch.finished",
    "chat.created",
    "job.finished",
    "job.finished",
    "job.started",
    "job.started",
  ]);
  expect(outcome.seqs).toEqual([1, 2, 3, 4, 5, 6]);
  expect(outcome).toMatchObject({ valid: true, forged: false });
});
