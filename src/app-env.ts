import type { TenantConfig } from "./config/schema";

/** Hono's typing of this worker: its bindings and what middleware puts on the context. */
export interface AppEnv {
  Bindings: Env;
  Variables: {
    tenant: string;
    config?: TenantConfig;
    /** Set when a WebSocket upgrade authenticated with a ticket: the chat it is limited to, or null for any. */
    ticket?: { chat_id: string | null };
  };
}
