/**
 * `/openapi.json` names exactly the routes the worker serves under /v1 (docs/api.md): its route
 * table is written beside the routes, so this test is what keeps the two from drifting apart.
 */
import { describe, expect, it } from "vitest";
import { app } from "../../src/edge/app";
import { openApiDocument } from "../../src/core/api/openapi";

const METHODS = new Set(["get", "post", "put", "patch", "delete"]);

describe("/openapi.json", () => {
  it("describes every /v1 route the worker serves, and no route it does not", () => {
    const served = new Set(
      app.routes
        .filter((r) => METHODS.has(r.method.toLowerCase()) && r.path.startsWith("/v1/"))
        .map((r) => `${r.method.toLowerCase()} ${r.path.replace(/:([a-z_]+)/g, "{$1}")}`),
    );
    const doc = openApiDocument() as { paths: Record<string, Record<string, unknown>> };
    const described = new Set(
      Object.entries(doc.paths).flatMap(([path, ops]) =>
        Object.keys(ops)
          .filter((m) => METHODS.has(m))
          .map((m) => `${m} ${path}`),
      ),
    );
    expect([...described].filter((op) => !served.has(op)).sort()).toEqual([]);
    expect([...served].filter((op) => !described.has(op)).sort()).toEqual([]);
    expect(served.size).toBeGreaterThan(20);
  });
});
