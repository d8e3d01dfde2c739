/**
 * Worker entry: the HTTP API, the queue consumers, and the Durable Object
 * classes the runtime instantiates by name.
 */
import { app } from "./edge/app";
import { consumeDeadLetters, consumeJobs } from "./edge/consumers";
import { consumeCalls } from "./edge/consumers/calls";

export { ChatDO } from "../durable-objects/chat/ChatDO";
export { TenantDO } from "../durable-objects/tenant/TenantDO";
export { CallRunnerDO } from "../durable-objects/runner/CallRunnerDO";
export { FlowShardDO } from "../durable-objects/flow/FlowShardDO";
export { BudgetDO } from "../durable-objects/budget/BudgetDO";
export { SpendDO } from "../durable-objects/spend/SpendDO";
export { DirectRunner } from "./edge/direct-runner";
export { TraceExport } from "./edge/telemetry/trace-export";

export default {
  fetch: app.fetch,
  async queue(batch, env, ctx) {
    if (batch.queue === "jobs-dlq") await consumeDeadLetters(batch, env);
    else if (batch.queue === "calls") await consumeCalls(batch, env, ctx);
    else await consumeJobs(batch, env);
  },
} satisfies ExportedHandler<Env>;
