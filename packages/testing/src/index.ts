/**
 * @fanout/testing: a real fanout inside a bot's own test suite, started in one
 * call. See docs/testing.md in the fanout repository.
 *
 *   const fanout = await startFanout({ tools: { search: { run: ({ q }) => `results for ${q}` } } });
 *   fanout.model.callTools([{ name: "search", args: { q: "cats" } }]).reply("Found cats.");
 *   // … drive the bot with fanout.url / fanout.apiKey, then:
 *   await fanout.webhooks.next("batch.finished");
 *   await fanout.stop();
 */
export { startFanout, type StartOptions, type TestConfig, type TestFanout } from "./start.js";
export { ToolHttpError, type TestTool, type ToolCallRecord, type ToolContext } from "./tools.js";
export type { MatchedTurns, ModelRequest, ScriptedCall, ScriptedModel, TurnMatch, TurnOptions } from "./model.js";
export type { EventMatch, NextOptions, WebhookReceiver } from "./webhooks.js";
