/**
 * Hono's typing of this worker: its bindings, and what a request carries once
 * the bearer middleware here has authenticated it (the tenant, a ticket's
 * scope) plus the tenant config the request helpers cache on it. Every route
 * and the middleware are typed by it, so it sits with the middleware.
 */
import type { TenantConfig } from "../../core/config/schema";

export interface AppEnv {
  Bindings: Env;
  Variables: {
    tenant: string;
    /** The API key the request came with, as an id that does not reveal it (`<tenant>:<digest prefix>`). */
    apiKey: string;
    config?: TenantConfig;
    /** Set when a WebSocket upgrade authenticated with a ticket: the chat it is limited to, or null for any. */
    ticket?: { chat_id: string | null };
  };
}
