/**
 * The whole service under `wrangler dev`, for the MCP clients' tests: the official SDK clients,
 * the conformance suite and an agent framework speak to it over real HTTP.
 */
import type { TestProject } from "vitest/node";
import { KEY, startLocalService } from "../browser/local-service";

declare module "vitest" {
  export interface ProvidedContext {
    fanoutUrl: string;
    fanoutKey: string;
  }
}

export default async function setup(project: TestProject) {
  const service = await startLocalService();
  project.provide("fanoutUrl", service.url);
  project.provide("fanoutKey", KEY);
  return () => service.stop();
}
