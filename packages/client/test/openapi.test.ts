/**
 * The client's types come from the worker's own /openapi.json, never written
 * by hand: these files are checked here against what the worker generates now, and so is the
 * list of job states the client reads (the worker's one list, src/core/api/job-states.ts).
 * After changing a wire schema: `npm run openapi -w @fanout/client`.
 */
import { readFile } from "node:fs/promises";
import openapiTS, { astToString } from "openapi-typescript";
import { describe, expect, it } from "vitest";
import { openApiDocument } from "../../../src/core/api/openapi";
import { JOB_STATES } from "../../../src/core/api/job-states";

const HEADER =
  "// Generated from openapi.json by openapi-typescript (npm run openapi -w @fanout/client). Do not edit.\n\n";

describe("generated API types", () => {
  it("openapi.json is the document the worker serves", async () => {
    await expect(`${JSON.stringify(openApiDocument(), null, 2)}\n`).toMatchFileSnapshot("../openapi.json");
  });

  it("src/openapi.ts is what openapi-typescript makes of openapi.json", async () => {
    const doc = JSON.parse(await readFile(new URL("../openapi.json", import.meta.url), "utf8"));
    await expect(HEADER + astToString(await openapiTS(doc))).toMatchFileSnapshot("../src/openapi.ts");
  });

  it("src/job-states.ts is the worker's list of job states", async () => {
    const generated = `${HEADER.replace("openapi.json by openapi-typescript", "src/core/api/job-states.ts")}/** A job's states, in lifecycle order: \`active\`, not ended yet; \`failed\`, ended without the call's answer. */
export const JOB_STATES = ${JSON.stringify(JOB_STATES, null, 2)} as const;

export type JobState = keyof typeof JOB_STATES;
`;
    await expect(generated).toMatchFileSnapshot("../src/job-states.ts");
  });
});
