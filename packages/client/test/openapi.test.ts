/**
 * The client's types come from the worker's own /openapi.json, never written
 * by hand: both files are checked here against what the worker generates now.
 * After changing a wire schema: `npm run openapi -w @fanout/client`.
 */
import { readFile } from "node:fs/promises";
import openapiTS, { astToString } from "openapi-typescript";
import { describe, expect, it } from "vitest";
import { openApiDocument } from "../../../src/api/openapi";

const HEADER = "// Generated from openapi.json by openapi-typescript (npm run openapi -w @fanout/client). Do not edit.\n\n";

describe("generated API types", () => {
  it("openapi.json is the document the worker serves", async () => {
    await expect(`${JSON.stringify(openApiDocument(), null, 2)}\n`).toMatchFileSnapshot("../openapi.json");
  });

  it("src/openapi.ts is what openapi-typescript makes of openapi.json", async () => {
    const doc = JSON.parse(await readFile(new URL("../openapi.json", import.meta.url), "utf8"));
    await expect(HEADER + astToString(await openapiTS(doc))).toMatchFileSnapshot("../src/openapi.ts");
  });
});
