/** The bot's bindings and settings (wrangler.toml, `wrangler secret put`, or `.dev.vars`). */
import type { Conversation } from "./conversation";

export interface Env {
  CONVERSATION: DurableObjectNamespace<Conversation>;
  /** fanout on the same account, as a service binding (wrangler.toml `[[services]]`): no public fetch between the two. */
  FANOUT?: Fetcher;
  /** fanout's URL, for a bot that cannot bind it (another account) and for local runs; it wins over the binding. */
  FANOUT_URL?: string;
  FANOUT_API_KEY: string;
  /** fanout's `webhook.secret` (whsec_…): its deliveries are signed with it. */
  FANOUT_WEBHOOK_SECRET: string;
  TELEGRAM_BOT_TOKEN: string;
  /** The `secret_token` given to Telegram's setWebhook: Telegram sends it back on every update. */
  TELEGRAM_SECRET_TOKEN: string;
  TELEGRAM_API_BASE_URL: string;
  LLM_BASE_URL: string;
  LLM_MODEL: string;
  LLM_API_KEY: string;
}
