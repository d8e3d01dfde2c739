/**
 * The client's calls about the tenant rather than one chat: its configuration, the tools a model
 * is given, what the flow rules hold back, what its span exports came to, and a test event to its webhook. `Fanout` answers for
 * them (its methods carry the documentation); apart so each route group reads alone.
 */
import type { Routes } from "./routes.js";
import type {
  ConfigAnswer,
  ConfigDocument,
  ConfigPatch,
  FlowAnswer,
  TelemetryAnswer,
  TenantConfig,
  ToolsAnswer,
  WebhookTestAnswer,
} from "./types.js";

export function testWebhook(routes: Routes, options: { signal?: AbortSignal }): Promise<WebhookTestAnswer> {
  return routes.send(options.signal, () => routes.api.POST("/v1/webhook/test", { signal: options.signal }));
}

export function tools(
  routes: Routes,
  agent: string | undefined,
  options: { signal?: AbortSignal },
): Promise<ToolsAnswer> {
  return routes.send(options.signal, () =>
    routes.api.GET("/v1/tools", { params: { query: agent ? { agent } : {} }, signal: options.signal }),
  );
}

export function flow(routes: Routes, options: { signal?: AbortSignal }): Promise<FlowAnswer> {
  return routes.send(options.signal, () => routes.api.GET("/v1/flow", { signal: options.signal }));
}

export function telemetry(routes: Routes, options: { signal?: AbortSignal }): Promise<TelemetryAnswer> {
  return routes.send(options.signal, () => routes.api.GET("/v1/telemetry", { signal: options.signal }));
}

// The config calls cast their answer: openapi-fetch's answer types widen `permission.task`'s
// [glob, action] tuples to string[][], while the generated types keep them.

export function config(routes: Routes, options: { signal?: AbortSignal }): Promise<TenantConfig> {
  return routes.send(options.signal, () =>
    routes.api.GET("/v1/config", { signal: options.signal }),
  ) as Promise<TenantConfig>;
}

/** Sent once, never repeated: see `Fanout.patchConfig`. */
export function patchConfig(
  routes: Routes,
  patch: ConfigPatch,
  options: { signal?: AbortSignal },
): Promise<ConfigAnswer> {
  const headers = { "content-type": "application/merge-patch+json" };
  const send = () => routes.api.PATCH("/v1/config", { body: patch, headers, signal: options.signal });
  return routes.send(options.signal, send, 1) as Promise<ConfigAnswer>;
}

export function putConfig(
  routes: Routes,
  doc: ConfigDocument,
  options: { signal?: AbortSignal },
): Promise<ConfigAnswer> {
  return routes.send(options.signal, () =>
    routes.api.PUT("/v1/config", { body: doc, signal: options.signal }),
  ) as Promise<ConfigAnswer>;
}
