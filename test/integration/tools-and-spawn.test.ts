/**
 * `GET /v1/tools?agent=` and `POST /v1/chats/{chat}/spawn` (docs/api.md#tool-definitions-for-an-agent,
 * docs/api.md#the-spawn-route).
 */
import { reset } from "cloudflare:test";
import { afterEach, describe, expect, it } from "vitest";
import { agentConfig, api, configure, json, scriptLlm } from "../helpers";

afterEach(() => reset());

const governed = (model: string) =>
  agentConfig(model, {
    agents: {
      boss: {
        description: "Runs the show",
        permission: {
          task: [
            ["*", "deny"],
            ["researcher", "allow"],
          ],
        },
      },
      researcher: { description: "Finds facts" },
      loner: { permission: { task: [["*", "deny"]] } },
    },
  });

const byName = (tools: any[]) => Object.fromEntries(tools.map((t) => [t.function.name, t.function]));

describe("GET /v1/tools", () => {
  it("lists parallel, the agent's tools and the spawning tools, as OpenAI function schemas", async () => {
    await configure(governed("m-tools-1"));
    const body = await json(await api("/v1/tools"));
    const tools = byName(body.tools);
    expect(Object.keys(tools)).toEqual(
      expect.arrayContaining(["parallel", "wait", "echo", "http_request", "spawn_task", "call_subordinate"]),
    );
    expect(body.tools.every((t: any) => t.type === "function")).toBe(true);
    expect(JSON.stringify(body)).not.toContain("$schema");
    expect(tools.spawn_task.parameters.properties.agent.enum).toEqual(["default", "boss", "researcher", "loner"]);
    expect(tools.spawn_task.parameters.required).toEqual(["task"]);
    expect(Object.keys(body.prompts)).toEqual(["parallel", "spawn_task", "call_subordinate", "orchestration"]);
  });

  it("leaves denied types out of the enums and prompts, and requires a type when default is denied", async () => {
    await configure(governed("m-tools-2"));
    const body = await json(await api("/v1/tools?agent=boss"));
    const tools = byName(body.tools);
    expect(tools.spawn_task.parameters.properties.agent.enum).toEqual(["researcher"]);
    expect(tools.spawn_task.parameters.required).toEqual(["task", "agent"]);
    expect(tools.call_subordinate.parameters.required).toEqual(["message", "profile"]);
    expect(body.prompts.spawn_task).toContain("`researcher`: Finds facts");
    expect(body.prompts.spawn_task).not.toContain("`default`");
    expect(body.prompts.spawn_task).not.toContain("{{agent_types}}");
  });

  it("leaves the spawning tools out entirely when no type is permitted", async () => {
    await configure(governed("m-tools-3"));
    const body = await json(await api("/v1/tools?agent=loner"));
    expect(Object.keys(byName(body.tools))).not.toEqual(expect.arrayContaining(["spawn_task"]));
    expect(byName(body.tools).call_subordinate).toBeUndefined();
    expect(body.prompts.spawn_task).toBe("");
  });

  it("answers 404 unknown_profile for an unknown agent", async () => {
    await configure(governed("m-tools-4"));
    const res = await api("/v1/tools?agent=ghost");
    expect(res.status).toBe(404);
    expect((await json(res)).error.code).toBe("unknown_profile");
  });
});

describe("POST /v1/chats/{chat}/spawn", () => {
  it("starts one subagent in the background by default", async () => {
    await configure(governed("m-spawn-1"));
    await scriptLlm("m-spawn-1", [{ content: "spawned answer" }]);
    const res = await api("/v1/chats/s1/spawn", { body: { task: "Find something." } });
    const body = await json(res);
    expect(body.status).toBe("started");
    expect(body.jobs[0]).toMatchObject({ tool_name: "spawn_task", context_id: expect.stringMatching(/^sub-/) });
    const awaited = await json(
      await api("/v1/chats/s1/parallel", { body: { action: "await", job_ids: [body.jobs[0].job_id], timeout: 20 } }),
    );
    expect(awaited.jobs[0]).toMatchObject({ state: "success", result: "spawned answer" });
  });

  it("waits for the result with wait:true", async () => {
    await configure(governed("m-spawn-2"));
    await scriptLlm("m-spawn-2", [{ content: "waited answer" }]);
    const body = await json(await api("/v1/chats/s2/spawn", { body: { task: "Find something.", wait: true } }));
    expect(body).toMatchObject({ status: "success", jobs: [{ state: "success", result: "waited answer" }] });
  });

  it("applies permission.task and refuses unsupported or wider options", async () => {
    await configure(governed("m-spawn-3"));
    const denied = await api("/v1/chats/s3/spawn?agent=boss", { body: { task: "x" } });
    expect(denied.status).toBe(403);
    const skills = await api("/v1/chats/s3/spawn", { body: { task: "x", skills: ["a"] } });
    expect((await json(skills)).error.code).toBe("invalid_subordinate_call");
    const wider = await api("/v1/chats/s3/spawn", {
      body: { task: "x", agent: "researcher", tools: ["no_such_tool"] },
    });
    expect((await json(wider)).error.message).toContain("`tools` must be a subset of the 'researcher' profile's tools");
  });
});
