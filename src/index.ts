/**
 * Worker entry: the HTTP API, the queue consumers, and the Durable Object
 * classes the runtime instantiates by name.
 */
import { app } from "./app";
import { consumeDeadLetters, consumeJobs } from "./consumer";

export { ChatDO } from "../durable-objects/chat/ChatDO";
export { TenantDO } from "../durable-objects/tenant/TenantDO";
export { LaneDO } from "../durable-objects/lane/LaneDO";
export { FlowDO } from "../durable-objects/flow/FlowDO";
export { FlowIndexDO } from "../durable-objects/flow/FlowIndexDO";
export { BudgetDO } from "../durable-objects/budget/BudgetDO";

export default {
  fetch: app.fetch,
  async queue(batch, env, _ctx) {
    if (batch.queue === "jobs-dlq") await consumeDeadLetters(batch, env);
    else await consumeJobs(batch, env);
  },
} satisfies ExportedHandler<Env>;
