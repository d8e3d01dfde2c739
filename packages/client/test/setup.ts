/**
 * The whole service under `wrangler dev` (the same harness as the dashboard's
 * browser test), shared by the client and CLI tests through `inject`.
 */
import type { TestProject } from "vitest/node";
import { KEY, startLocalService } from "../../../test/browser/local-service";

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
