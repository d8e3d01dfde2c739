import type { TenantConfig } from "./config/schema";

/** Hono's typing of this worker: its bindings and what middleware puts on the context. */
export interface AppEnv {
  Bindings: Env;
  Variables: { tenant: string; config?: TenantConfig };
}
