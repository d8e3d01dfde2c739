/**
 * Webhook deliveries from the client and the CLI, against the service under
 * `wrangler dev` and a real receiver on 127.0.0.1 that a test can make fail,
 * hold, then succeed: the listing, redelivery, and the test event.
 */
import { createServer, type IncomingMessage, type Server } from "node:http";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { eventually } from "../../../test/eventually";
import { USAGE } from "../src/cli/main.js";
import { FanoutError, readWebhook } from "../src/index.js";
import { chat, client, configure, runCli, wait } from "./helpers.js";

const SECRET = "whsec_dGVzdC1jbGllbnQtZGVsaXZlcmllcy1zZWNyZXQ=";

interface Received {
  headers: Record<string, string>;
  body: string;
  status: number;
}

/** Answers the scripted statuses in arrival order (then 200), each after `holdMs`. */
const receiver = {
  server: undefined as Server | undefined,
  url: "",
  script: [] as number[],
  holdMs: 0,
  received: [] as Received[],
  reset(script: number[] = [], holdMs = 0) {
    this.script = [...script];
    this.holdMs = holdMs;
    this.received = [];
  },
  of(id: string) {
    return this.received.filter((d) => d.headers["webhook-id"] === id);
  },
};

beforeAll(async () => {
  receiver.server = createServer((req: IncomingMessage, res) => {
    let body = "";
    req.on("data", (c) => (body += c));
    req.on("end", () => {
      const status = receiver.script.shift() ?? 200;
      setTimeout(() => {
        receiver.received.push({ headers: req.headers as Record<string, string>, body, status });
        res.writeHead(status).end();
      }, receiver.holdMs);
    });
  });
  await new Promise<void>((r) => receiver.server!.listen(0, "127.0.0.1", r));
  receiver.url = `http://127.0.0.1:${(receiver.server.address() as { port: number }).port}/hook`;
});
afterAll(() => new Promise<void>((r) => (receiver.server ? receiver.server.close(() => r()) : r())));

beforeEach(async () => {
  receiver.reset();
  await configure({ webhook: { url: receiver.url, secret: SECRET } });
});

const fanout = (argv: string[]) => runCli(argv);

/** A chat one of whose events the receiver refused with a 400; the others were delivered. */
async function chatWithAFailedEvent(name: string) {
  const id = chat(name);
  receiver.reset([400]);
  await client().parallel(id, { tool_calls: [wait(0.01)] });
  const failed = await eventually(async () => (await client().deliveries(id, "failed"))[0]);
  await eventually(async () => (await client().deliveries(id, "delivered")).length === 4);
  return { id, failed };
}

describe("the client", () => {
  it("lists a failed event, redelivers it with the same id and signature, and sees it delivered", async () => {
    const fanout = client();
    const { id, failed } = await chatWithAFailedEvent("dl");
    expect(failed).toMatchObject({ status: "failed", attempts: 1, last_status: 400, failed_at: expect.any(String) });
    const first = receiver.of(failed.id)[0]!;

    const pending = await fanout.redeliver(id, failed.id);
    expect(pending).toMatchObject({
      id: failed.id,
      seq: failed.seq,
      status: "pending",
      attempts: 0,
      next_attempt_at: expect.any(String),
    });
    const again = await eventually(async () => receiver.of(failed.id).find((d) => d.status === 200));
    expect(again.body).toBe(first.body);
    expect((await readWebhook(SECRET, again.headers, again.body))?.id).toBe(failed.id);
    const delivered = await eventually(async () =>
      (await fanout.deliveries(id, "delivered")).find((d) => d.id === failed.id),
    );
    expect(delivered).toMatchObject({
      status: "delivered",
      attempts: 1,
      last_status: 200,
      delivered_at: expect.any(String),
    });
    expect(await fanout.deliveries(id, "failed")).toEqual([]);
  });

  it("leaves a pending event whose attempt is out to that attempt, then sends it at once if that attempt fails", async () => {
    const fanout = client();
    const { id, failed } = await chatWithAFailedEvent("dl-busy");
    receiver.reset([503], 1500); // the redelivery's attempt is held open, then refused
    const started = Date.now();
    await fanout.redeliver(id, failed.id);
    await new Promise((r) => setTimeout(r, 300)); // the attempt is out, held by the receiver
    expect(await fanout.redeliver(id, failed.id)).toMatchObject({ id: failed.id, status: "pending" });
    // Never two at once; the second attempt leaves when the first ends, not at the 5 s retry after it.
    await eventually(async () => receiver.of(failed.id).length === 2);
    expect(receiver.of(failed.id).map((d) => d.status)).toEqual([503, 200]);
    expect(Date.now() - started).toBeLessThan(1500 + 1500 + 2500);
    const unknown = await fanout.redeliver(id, "evt_aaaaaaaaaaaaaaaaaaaaa").catch((e) => e);
    expect(unknown).toBeInstanceOf(FanoutError);
    expect(unknown).toMatchObject({ status: 404, code: "event_not_found" });
  });

  it("testWebhook sends one signed webhook.test event and answers the receiver's status", async () => {
    const answer = await client().testWebhook();
    expect(answer).toEqual({ status: 200, duration_ms: expect.any(Number) });
    const [delivery] = receiver.received;
    const event = await readWebhook(SECRET, delivery!.headers, delivery!.body);
    expect(event).toEqual({
      id: expect.stringMatching(/^evt_/),
      type: "webhook.test",
      timestamp: expect.any(String),
      data: { tenant: "e2e" },
    });

    receiver.reset([500]);
    expect(await client().testWebhook()).toMatchObject({ status: 500, error: expect.stringContaining("retried") });
  });
});

describe("the CLI", () => {
  it("fanout events --failed lists one chat's (--chat) or every chat's failed deliveries", async () => {
    const { id, failed } = await chatWithAFailedEvent("cli-dl");
    const one = await fanout(["events", "--failed", "--chat", id]);
    expect(one.code).toBe(0);
    const [head, row, ...rest] = one.stdout.trim().split("\n");
    expect(head).toMatch(/^chat\s+event\s+type\s+seq\s+status\s+attempts\s+last\s+at\s+error$/);
    expect(row).toMatch(
      new RegExp(
        `^${id}\\s+${failed.id}\\s+${failed.type.replace(".", "\\.")}\\s+${failed.seq}\\s+failed\\s+1\\s+400\\s+\\S+Z\\s+The receiver answered 400; not retried\\.$`,
      ),
    );
    expect(rest).toEqual([]);

    const json = JSON.parse((await fanout(["events", "--failed", "--delivered", "--chat", id, "--json"])).stdout);
    expect(json.events.map((e: { status: string }) => e.status).sort()).toEqual([
      "delivered",
      "delivered",
      "delivered",
      "delivered",
      "failed",
    ]);
    expect(json.events.map((e: { seq: number }) => e.seq)).toEqual([1, 2, 3, 4, 5]);
    expect(json.events.every((e: { chat_id: string }) => e.chat_id === id)).toBe(true);

    const all = JSON.parse((await fanout(["events", "--failed", "--json"])).stdout);
    expect(all.events).toContainEqual({ chat_id: id, ...failed });
    expect((await fanout(["events", "--pending", "--chat", id])).stdout).toBe("no deliveries\n");
  });

  it("fanout redeliver <chat> <id> sends it again, and a pending one now", async () => {
    const { id, failed } = await chatWithAFailedEvent("cli-rd");
    receiver.reset([], 1500);
    const sent = await fanout(["redeliver", id, failed.id]);
    expect(sent).toMatchObject({
      code: 0,
      stdout: `${failed.id} (${failed.type}, seq ${failed.seq}) of ${id}: pending again, a fresh attempt schedule\n`,
    });
    expect(await fanout(["redeliver", id, failed.id])).toMatchObject({
      code: 0,
      stdout: expect.stringContaining("pending again"),
    });
    await eventually(async () => receiver.of(failed.id).some((d) => d.status === 200));
    expect(JSON.parse((await fanout(["redeliver", id, failed.id, "--json"])).stdout)).toMatchObject({
      id: failed.id,
      status: "pending",
    });
  });

  it("fanout webhook test prints the receiver's answer: exit 0 on a 2xx, 1 otherwise", async () => {
    expect(await fanout(["webhook", "test"])).toMatchObject({
      code: 0,
      stdout: expect.stringMatching(/^webhook\.url answered 200 in \d+ ms\n$/),
    });
    receiver.reset([410]);
    const gone = await fanout(["webhook", "test"]);
    expect(gone.code).toBe(1);
    expect(gone.stdout).toMatch(
      /^webhook\.url answered 410 in \d+ ms: The receiver answered 410 Gone: an event answered so disables the webhook/,
    );
    receiver.reset([503]);
    expect(JSON.parse((await fanout(["webhook", "test", "--json"])).stdout)).toMatchObject({
      status: 503,
      error: expect.any(String),
    });

    await configure({});
    expect(await fanout(["webhook", "test"])).toMatchObject({
      code: 1,
      stderr:
        "fanout: no_webhook: No webhook is configured: set webhook.url with PATCH /v1/config, then send the test event.\n",
    });
  });

  it("says what each command needs (exit 2) and lists them in the usage", async () => {
    expect(await fanout(["events"])).toMatchObject({
      code: 2,
      stderr: expect.stringContaining("events needs --failed, --pending or --delivered"),
    });
    expect(await fanout(["redeliver", "only-a-chat"])).toMatchObject({
      code: 2,
      stderr: expect.stringContaining("fanout redeliver <chat> <event_id>"),
    });
    expect(await fanout(["webhook"])).toMatchObject({
      code: 2,
      stderr: expect.stringContaining("`fanout webhook test`"),
    });
    for (const command of ["events   --failed|--pending|--delivered", "redeliver <chat> <event_id>", "webhook test"])
      expect(USAGE).toContain(command);
  });
});
