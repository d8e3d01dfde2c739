/**
 * Fault injection for tests only (the deploy bundle has none): hand-made
 * queue batches, and swapping bindings of a live Durable Object instance so
 * its sends are lost or its calls fail.
 */
import {
  abortAllDurableObjects,
  createExecutionContext,
  createMessageBatch,
  env,
  evictDurableObject,
  getQueueResult,
  runInDurableObject,
} from "cloudflare:test";
import worker from "../src/index";
import type { JobMessage } from "../src/core/jobs/messages";
import { call, chatObject, parallel } from "./helpers";

export const message = (chat: string, job_id: string, attempt = 1): JobMessage => ({
  tenant: "acme",
  chat_id: chat,
  job_id,
  attempt,
});

/** Hands `bodies` to the worker's consumer of `queue` as one batch; `bindings` replace the worker's own. */
export async function deliver(queue: string, bodies: unknown[], bindings: Partial<Record<keyof Env, unknown>> = {}) {
  const batch = createMessageBatch(
    queue,
    bodies.map((body, i) => ({ id: `m${i}`, timestamp: new Date(), attempts: 1, body })),
  );
  const ctx = createExecutionContext();
  await worker.queue(batch as MessageBatch<unknown>, { ...env, ...bindings } as Env, ctx);
  return getQueueResult(batch, ctx);
}

export async function startedJob(chat: string, tool: ReturnType<typeof call>) {
  const { body } = await parallel(chat, { tool_calls: [tool], wait: false });
  return body.jobs[0].job_id as string;
}

/** Replaces bindings of a live object instance (until it is evicted) with what `overrides` returns. */
export async function swapEnv(stub: DurableObjectStub, overrides: (real: Env) => Partial<Record<keyof Env, unknown>>) {
  await runInDurableObject(stub, (instance) => {
    const real = (instance as unknown as { env: Env }).env;
    Object.defineProperty(instance, "env", { value: { ...real, ...overrides(real) }, configurable: true });
  });
}

/**
 * Degrades the chat's live instance. `queue`: `drop` loses every send, `record`
 * passes it on, `fail` throws, `hang` never settles. `fastPath`: `refuse` fails
 * the chat's hand-overs to its runner objects (calls past a Worker's lifetime:
 * see `CALLS_IN_OBJECTS`), `record` notes them and drops them. Returns what was
 * sent to the queue and handed over meanwhile.
 */
export async function degradeChat(
  chat: string,
  faults: { queue?: "drop" | "record" | "fail" | "hang"; fastPath?: "refuse" | "record" },
) {
  const sent: unknown[] = [];
  const started: unknown[] = [];
  await swapEnv(chatObject(chat), (real) => {
    const send = async (bodies: unknown[], pass: () => Promise<unknown>) => {
      if (faults.queue === "fail") throw new Error("queue unavailable");
      if (faults.queue === "hang") return new Promise<void>(() => {});
      sent.push(...bodies);
      if (faults.queue === "record") await pass();
    };
    // Both queues: the batch's copy (`jobs`) and the calls sent to Worker runners (`calls`).
    const queueOf = (real: Queue) => ({
      send: (body: unknown) => send([body], () => real.send(body)),
      sendBatch: (messages: { body: unknown }[]) =>
        send(
          messages.map((m) => m.body),
          () => real.sendBatch(messages),
        ),
    });
    const runnerObjects = {
      getByName: () => ({
        run: async (calls: { call: { job_id: string } }[]) => {
          if (faults.fastPath === "refuse") throw new Error("runner object unreachable");
          started.push(...calls.map((c) => c.call.job_id));
        },
        abort: async () => {},
      }),
    };
    return {
      ...(faults.queue ? { JOBS: queueOf(real.JOBS), CALLS: queueOf(real.CALLS) } : {}),
      ...(faults.fastPath ? { CALL_RUNNER: runnerObjects } : {}),
    };
  });
  return { sent, started };
}

/**
 * A job nobody starts before the dispatch watchdog: a call for the `calls` queue (the default
 * deadline) whose message and queue copy were both lost, in a chat that has since forgotten it sent
 * them (evicted, its real bindings back). A test starts it with a queue copy of its own.
 */
export async function strandedJob(chat: string, tool: ReturnType<typeof call>) {
  await parallel(chat, { tool_calls: [call("echo", { warm: 1 })] }); // the chat exists
  await degradeChat(chat, { queue: "drop" });
  const id = await startedJob(chat, tool);
  await evictDurableObject(chatObject(chat)).catch(() => abortAllDurableObjects());
  return id;
}
