/**
 * fanout's jobs as MCP tasks (docs/mcp.md#tasks) in the Workers runtime: the 2026-07-28 tasks
 * extension (through the extension's own client, and raw where the wire is the point), approvals
 * asked of the client as `input_required`, and 2025-11-25's task-augmented calls through the v1
 * SDK's task client. Task id = job id throughout.
 */
import { reset } from "cloudflare:test";
import { CallToolResultSchema } from "@modelcontextprotocol/sdk/types.js";
import { afterEach, describe, expect, it } from "vitest";
import { api, configure, json, toolConfig } from "../helpers";
import { legacyClient, legacyRequest, modernClient, modernRequest, rpc, taskSession } from "../mcp-clients";

afterEach(() => reset());

const record = async (chat: string, jobId: string) => json(await api(`/v1/chats/${chat}/jobs/${jobId}`));
const taskCall = (chat: string, name: string, args: Record<string, unknown>, id = 1) =>
  rpc(chat, modernRequest("tools/call", { name, arguments: args }, { id, tasks: true }));
/** The call's result in a completed outcome of the extension's client. */
const resultOf = (outcome: unknown) =>
  (outcome as { result: { isError?: boolean; structuredContent: { job_id: string; state: string } } }).result;
const taskGet = (chat: string, taskId: string) => rpc(chat, modernRequest("tasks/get", { taskId }, { tasks: true }));

describe("the 2026-07-28 tasks extension", () => {
  it("answers a call whose job is not over within a second with its task, then its result on tasks/get", async () => {
    await configure(toolConfig({ limits: { retention_seconds: 3600 } }));
    const created = await taskCall("task-1", "sleep", { ms: 1800 });
    const task = created.last.result;
    expect(task).toMatchObject({ resultType: "task", status: "working", pollIntervalMs: 1000, ttlMs: 3_600_000 });
    expect((await record("task-1", task.taskId)).tool_name).toBe("sleep"); // the task is the job
    expect(Date.parse(task.createdAt)).toBeLessThanOrEqual(Date.parse(task.lastUpdatedAt));

    let got: any;
    await expect
      .poll(async () => (got = (await taskGet("task-1", task.taskId)).last.result).status, { timeout: 10_000 })
      .toBe("completed");
    expect(got.resultType).toBe("complete");
    expect(got.result).toMatchObject({ resultType: "complete", isError: false });
    expect(got.result.structuredContent).toMatchObject({ job_id: task.taskId, state: "success" });
  });

  it("answers a call that ends within the second at once, with no task", async () => {
    await configure(toolConfig());
    const answer = await taskCall("task-2", "echo", { x: 1 });
    expect(answer.last.result.resultType).toBe("complete");
    expect(answer.last.result.structuredContent.state).toBe("success");
  });

  it("reports a failed job as completed with an error result, and a cancelled one as cancelled", async () => {
    await configure(toolConfig());
    const failing = (await taskCall("task-3", "sleep", { ms: 1500 })).last.result;
    const hanging = (await taskCall("task-3", "hang", {}, 2)).last.result;
    expect(hanging.resultType).toBe("task");

    const cancel = await rpc("task-3", modernRequest("tasks/cancel", { taskId: hanging.taskId }, { tasks: true }));
    expect(cancel.last.result).toMatchObject({ resultType: "complete" });
    expect((await record("task-3", hanging.taskId)).state).toBe("cancelled");
    expect((await taskGet("task-3", hanging.taskId)).last.result.status).toBe("cancelled");
    expect(failing.resultType).toBe("task");

    const broken = (await taskCall("task-3", "fail404", {}, 3)).last.result;
    let done = broken;
    if (broken.resultType === "task") {
      await expect
        .poll(async () => (done = (await taskGet("task-3", broken.taskId)).last.result).status, { timeout: 10_000 })
        .toBe("completed");
      done = done.result;
    }
    expect(done.isError).toBe(true);
    expect(done.structuredContent.state).toBe("error");

    const unknown = await taskGet("task-3", "echo-nope");
    expect(unknown.last.error.code).toBe(-32602);
  });

  it("runs through the extension's own client: the task, its updates, its outcome", async () => {
    await configure(toolConfig());
    const session = await taskSession("task-4");
    const execution = await session.callTool("sleep", { ms: 1500 });
    expect(execution.kind).toBe("task");
    const seen: string[] = [];
    const { outcome } = await execution.settle({
      onEvent: (e) => void (e.type === "task" && seen.push(e.task.status)),
    });
    expect(outcome.status).toBe("completed");
    expect(seen).toContain("working");
    expect(resultOf(outcome).structuredContent.state).toBe("success");
    await session.close();
  });

  it("asks the client for approval as input_required, and its answer decides, by mcp:<client name>", async () => {
    await configure(toolConfig({ approvals: [{ tools: ["other"], ask_mcp_client: true }] }));
    const forms: string[] = [];
    const session = await taskSession(
      "task-5",
      {
        onInputRequest: async (request) => {
          forms.push(JSON.stringify(request.params));
          return { action: "accept", content: { decision: "approve", reason: "looks right" } } as never;
        },
      },
      "agent-host",
    );
    const execution = await session.callTool("other", { to: "a@example.com" });
    const { outcome } = await execution.settle();
    expect(outcome.status).toBe("completed");
    expect(forms[0]).toContain("other");
    expect(forms[0]).toContain("a@example.com");
    const jobId = resultOf(outcome).structuredContent.job_id;
    expect((await record("task-5", jobId)).approval).toMatchObject({
      status: "approved",
      by: "mcp:agent-host",
      reason: "looks right",
    });
    await session.close();
  });

  it("lets a declined form deny the call; without the flag the task stays working with the wait in its message", async () => {
    await configure(
      toolConfig({
        approvals: [
          { tools: ["other"], ask_mcp_client: true },
          { tools: ["echo"], timeout_seconds: 600 },
        ],
      }),
    );
    const session = await taskSession("task-6", { onInputRequest: async () => ({ action: "decline" }) as never });
    const denied = await (await session.callTool("other", {})).settle();
    expect(denied.outcome.status).toBe("completed");
    const result = resultOf(denied.outcome);
    expect(result.isError).toBe(true);
    expect(result.structuredContent.state).toBe("error");
    await session.close();

    const plain = (await taskCall("task-6", "echo", {}, 9)).last.result;
    expect(plain).toMatchObject({ resultType: "task", status: "working", statusMessage: "waiting for approval" });
    const update = await rpc(
      "task-6",
      modernRequest(
        "tasks/update",
        { taskId: plain.taskId, inputResponses: { approval: { action: "accept", content: { decision: "approve" } } } },
        { tasks: true },
      ),
    );
    expect(update.last.error.code).toBe(-32602); // its rule asks a person, not this client
  });

  it("asks the client by the rule of the agent that made the call, and takes one decision only", async () => {
    await configure(
      toolConfig({
        agents: { bot: {} },
        approvals: [
          { tools: ["other"], agents: ["bot"], ask_mcp_client: true },
          { tools: ["other"], timeout_seconds: 600 },
        ],
      }),
    );
    // A call the bot agent made over MCP is the client's to decide, whichever agent a later request names.
    const asked = (
      await rpc("task-11", modernRequest("tools/call", { name: "other", arguments: {} }, { tasks: true }), "?agent=bot")
    ).last.result;
    expect(asked).toMatchObject({ resultType: "task", status: "working", statusMessage: "waiting for approval" });
    const seen = await rpc("task-11", modernRequest("tasks/get", { taskId: asked.taskId }, { tasks: true }));
    expect(seen.last.result.status).toBe("input_required");
    expect(seen.last.result.inputRequests.approval.method).toBe("elicitation/create");

    // A call of the default agent is a person's to decide, even for a client that names the bot agent.
    const personal = (
      await rpc("task-11", modernRequest("tools/call", { name: "other", arguments: {} }, { id: 2, tasks: true }))
    ).last.result;
    const approve = { approval: { action: "accept", content: { decision: "approve" } } };
    const refused = await rpc(
      "task-11",
      modernRequest("tasks/update", { taskId: personal.taskId, inputResponses: approve }, { tasks: true }),
      "?agent=bot",
    );
    expect(refused.last.error.code).toBe(-32602);
    expect((await record("task-11", personal.taskId)).approval.status).toBe("pending");

    // A decision taken elsewhere first: the client's answer is refused, and the first decision holds.
    await api(`/v1/chats/task-11/jobs/${asked.taskId}/approval`, { body: { decision: "deny", by: "ops" } });
    const late = await rpc(
      "task-11",
      modernRequest("tasks/update", { taskId: asked.taskId, inputResponses: approve }, { tasks: true }),
    );
    expect(late.last.error.code).toBe(-32602);
    expect((await record("task-11", asked.taskId)).approval).toMatchObject({ status: "denied", by: "ops" });
  });

  it("shows a client without the extension the same approval as a wait in progress", async () => {
    await configure(toolConfig({ approvals: [{ tools: ["other"], ask_mcp_client: true }] }));
    const client = await modernClient("task-7");
    const messages: string[] = [];
    const pending = client.callTool(
      { name: "other", arguments: {} },
      { onprogress: (p) => void messages.push(p.message ?? "") },
    );
    await expect.poll(() => messages).toContain("waiting for approval");
    const jobs = await json(await api("/v1/chats/task-7/jobs"));
    await api(`/v1/chats/task-7/jobs/${jobs.jobs[0].job_id}/approval`, { body: { decision: "deny", reason: "no" } });
    const result = await pending;
    expect(result.isError).toBe(true);
  });
});

describe("2025-11-25 task-augmented calls", () => {
  it("answers a task call with its task at once; tasks/get, tasks/result and tasks/list follow the job", async () => {
    await configure(toolConfig());
    const client = await legacyClient("task-8");
    const kinds: string[] = [];
    let taskId = "";
    let final: any;
    for await (const message of client.experimental.tasks.callToolStream(
      { name: "sleep", arguments: { ms: 800 } },
      CallToolResultSchema,
      { task: { ttl: 60_000 } },
    )) {
      kinds.push(message.type);
      if (message.type === "taskCreated") taskId = message.task.taskId;
      if (message.type === "result") final = message.result;
      if (message.type === "error") throw message.error;
    }
    expect(kinds[0]).toBe("taskCreated");
    expect(kinds.at(-1)).toBe("result");
    expect(final.structuredContent).toMatchObject({ job_id: taskId, state: "success" });
    const task = await client.experimental.tasks.getTask(taskId);
    expect(task).toMatchObject({ taskId, status: "completed", pollInterval: 1000 });
    const listed = await client.experimental.tasks.listTasks();
    expect(listed.tasks.map((t) => t.taskId)).toContain(taskId);
    await expect(client.experimental.tasks.listTasks("not-a-job")).rejects.toThrow(/cursor/);
  });

  it("answers a task call with its task even when the job is over at once; tasks/result hands over the result", async () => {
    await configure(toolConfig());
    await rpc(
      "task-10",
      legacyRequest("initialize", {
        protocolVersion: "2025-11-25",
        capabilities: {},
        clientInfo: { name: "raw", version: "1" },
      }),
    );
    const created = await rpc(
      "task-10",
      legacyRequest("tools/call", { name: "echo", arguments: { x: 1 }, task: { ttl: 60_000 } }, "2025-11-25"),
    );
    const { task } = created.last.result;
    expect(task).toMatchObject({ status: expect.stringMatching(/^(working|completed)$/), pollInterval: 1000 });
    expect(typeof task.ttl).toBe("number");
    const result = await rpc("task-10", legacyRequest("tasks/result", { taskId: task.taskId }, "2025-11-25", 2));
    expect(result.last.result).toMatchObject({
      isError: false,
      structuredContent: { job_id: task.taskId, state: "success" },
      _meta: { "io.modelcontextprotocol/related-task": { taskId: task.taskId } },
    });
    expect((await record("task-10", task.taskId)).collected_at).not.toBeNull();
  });

  it("cancels a task's job, and refuses to cancel one that ended", async () => {
    await configure(toolConfig());
    const client = await legacyClient("task-9");
    let taskId = "";
    for await (const message of client.experimental.tasks.callToolStream(
      { name: "hang", arguments: {} },
      CallToolResultSchema,
      {
        task: {},
      },
    )) {
      if (message.type === "taskCreated") {
        taskId = message.task.taskId;
        break;
      }
    }
    const cancelled = await client.experimental.tasks.cancelTask(taskId);
    expect(cancelled.status).toBe("cancelled");
    expect((await record("task-9", taskId)).state).toBe("cancelled");
    await expect(client.experimental.tasks.cancelTask(taskId)).rejects.toThrow(/already ended/);
  });
});
