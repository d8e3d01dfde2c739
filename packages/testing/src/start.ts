/**
 * `startFanout()`: the worker, the tools, the model and the webhook receiver,
 * started side by side and wired through one tenant configuration.
 */
import { Fanout, type ConfigDocument } from "@fanout/client";
import { signingSecret } from "./http.js";
import { startModel, type ScriptedModel } from "./model.js";
import { startTools, type TestTool, type ToolCallRecord } from "./tools.js";
import { startWebhooks, type WebhookReceiver } from "./webhooks.js";
import { startWorker } from "./worker.js";

export interface StartOptions {
  /** Tools as functions, by name; each becomes a tenant HTTP tool served from this process. */
  // `any`: each tool types its own arguments, which one record of tools cannot name.
  tools?: Record<string, TestTool<any>>;
  /**
   * The model name subagents ask the scripted model for (`llm.model`); default `"fake-model"`.
   * `false` configures no `llm` (give your own in `config.llm`).
   */
  model?: string | false;
  /**
   * The rest of the tenant configuration (limits, agents, flow, approvals, `webhook.events`, …);
   * `webhook.url` is the receiver's.
   */
  config?: TestConfig;
  /** fanout's port; default a free one. */
  port?: number;
  /** Print the worker's log lines as they come (also with FANOUT_TESTING_LOG=1). */
  log?: boolean;
}

type Webhook = NonNullable<ConfigDocument["webhook"]>;
/** A tenant configuration whose webhook has no `url`: the kit's receiver takes every delivery. */
export type TestConfig = Omit<ConfigDocument, "webhook"> & { webhook?: Omit<Webhook, "url"> | null };

export interface TestFanout {
  /** Where fanout answers: the bot's FANOUT_URL. */
  url: string;
  /** The tenant's API key: the bot's FANOUT_API_KEY. */
  apiKey: string;
  tenant: string;
  /** `@fanout/client` for this fanout. */
  client: Fanout;
  model: ScriptedModel;
  webhooks: WebhookReceiver;
  tools: { readonly calls: ToolCallRecord[]; readonly unsigned: number; reset(): void };
  /** The chat's MCP endpoint (fanout's docs/mcp.md), for an MCP client under test; send `apiKey` as a bearer token. */
  mcpUrl(chatId: string, options?: { agent?: string }): string;
  /** The worker's recent log lines. */
  logs: string[];
  stop(): Promise<void>;
  [Symbol.asyncDispose](): Promise<void>;
}

const TENANT = "test";

export async function startFanout(options: StartOptions = {}): Promise<TestFanout> {
  const apiKey = `fanout-test-${Buffer.from(crypto.getRandomValues(new Uint8Array(18))).toString("base64url")}`;
  const config = options.config ?? {};
  const webhookSecret = config.webhook?.secret ?? signingSecret();
  /** Set once the worker is up: what a webhook wait reads the configuration with. */
  let configReader: Fanout | undefined;

  // Every part starts side by side; if one fails, the others are closed once they have started.
  const parts = await Promise.allSettled([
    startWorker({
      port: options.port,
      log: options.log,
      vars: {
        API_KEYS: `${TENANT}:${apiKey}`,
        CONFIG_KEY: Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("base64"),
        // The tools, the model and the receiver listen on 127.0.0.1.
        ALLOW_PRIVATE_EGRESS: "true",
      },
    }),
    startModel(),
    // A `next` that times out reads `webhook.events` then, as the test may have changed it since.
    startWebhooks(webhookSecret, async () => (await configReader?.config())?.webhook?.events),
    startTools(options.tools ?? {}),
  ] as const);
  const started = parts.flatMap((p) => (p.status === "fulfilled" ? [p.value] : []));
  let stopping: Promise<void> | undefined;
  // Once, however often it is called (`await using` and an explicit stop() both may).
  const stop = () =>
    (stopping ??= Promise.allSettled(started.map((part) => ("stop" in part ? part.stop() : part.close()))).then(
      () => undefined,
    ));
  const failed = parts.find((p) => p.status === "rejected");
  if (failed) {
    await stop();
    throw failed.reason;
  }
  const [worker, model, webhooks, tools] = parts.map((p) => (p as PromiseFulfilledResult<unknown>).value) as [
    Awaited<ReturnType<typeof startWorker>>,
    Awaited<ReturnType<typeof startModel>>,
    Awaited<ReturnType<typeof startWebhooks>>,
    Awaited<ReturnType<typeof startTools>>,
  ];

  try {
    const client = new Fanout({ url: worker.url, apiKey });
    configReader = client;
    const modelName = options.model ?? "fake-model";
    await client.putConfig({
      ...config,
      tools: [...tools.config, ...(config.tools ?? [])],
      llm:
        config.llm !== undefined
          ? config.llm
          : modelName === false
            ? null
            : { base_url: model.openaiBaseUrl, model: modelName, api_key: "fake-key" },
      webhook: config.webhook === null ? null : { ...config.webhook, url: webhooks.url, secret: webhookSecret },
    } as ConfigDocument);
    return {
      url: worker.url,
      apiKey,
      tenant: TENANT,
      client,
      model,
      webhooks,
      tools,
      mcpUrl: (chatId, o) => client.mcpUrl(chatId, o),
      logs: worker.logs,
      stop,
      [Symbol.asyncDispose]: stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}
