/** The release check: a dry run is clean only without npm's warnings, and with every file a user's install needs. */
import { describe, expect, it } from "vitest";
import { PACKAGES, releaseProblems } from "../release-check.mjs";

const LOGIN = "npm warn publish This command requires you to be logged in to https://registry.npmjs.org/ (dry-run)";

describe("releaseProblems", () => {
  it("passes a dry run whose only warning is the missing login, with every required file", () => {
    expect(releaseProblems("@fanout/client", `${LOGIN}\nnpm notice Publishing…`, PACKAGES["@fanout/client"])).toEqual(
      [],
    );
  });

  it("names npm's other warnings, such as a bin entry npm would drop", () => {
    const stderr = `npm warn publish errors corrected:\nnpm warn publish "bin[fanout]" script name ./bin/fanout.js was invalid and removed\n${LOGIN}`;
    expect(releaseProblems("@fanout/client", stderr, PACKAGES["@fanout/client"])).toEqual([
      "@fanout/client: npm warn publish errors corrected:",
      '@fanout/client: npm warn publish "bin[fanout]" script name ./bin/fanout.js was invalid and removed',
    ]);
  });

  it("names the files a tarball lacks: the kit without its worker bundle is no kit", () => {
    const files = PACKAGES["@fanout/testing"].filter((f) => !f.startsWith("worker/"));
    expect(releaseProblems("@fanout/testing", LOGIN, files)).toEqual([
      "@fanout/testing: the tarball has no worker/index.js",
      "@fanout/testing: the tarball has no worker/options.json",
    ]);
  });
});
