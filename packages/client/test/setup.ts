/**
 * The whole service under `wrangler dev` (the same harness as the dashboard's
 * browser test), and a local stand-in for the model APIs the SDK round trips
 * call, shared by the client and CLI tests through `inject`.
 */
import type { TestProject } from "vitest/node";
import { KEY, startLocalService } from "../../../test/browser/local-service";
import { fakeModels } from "./fake-models.js";

declare module "vitest" {
  export interface ProvidedContext {
    fanoutUrl: string;
    fanoutKey: string;
    modelsUrl: string;
  }
}

export default async function setup(project: TestProject) {
  const [service, models] = await Promise.all([startLocalService(), fakeModels()]);
  project.provide("fanoutUrl", service.url);
  project.provide("fanoutKey", KEY);
  project.provide("modelsUrl", models.url);
  return async () => {
    await models.close();
    await service.stop();
  };
}
