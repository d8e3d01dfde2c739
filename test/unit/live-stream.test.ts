/**
 * Resuming a live stream (docs/api.md#live-streams): from the cursor, or `cursor.expired` when something the
 * client missed is gone.
 */
import { describe, expect, it } from "vitest";
import { echoCloseCode, REPLAY_LIMIT, resumeFrom, type StreamLog } from "../../durable-objects/shared/live-stream";

const log = (oldest: number | undefined, latest: number): StreamLog => ({
  oldest: () => oldest,
  latest: () => latest,
  after: () => [],
});

describe("resumeFrom", () => {
  it("resumes right after the cursor when everything since is kept", () => {
    expect(resumeFrom(5, log(1, 9))).toEqual({ expired: false, from: 5 });
    expect(resumeFrom(9, log(1, 9))).toEqual({ expired: false, from: 9 });
    expect(resumeFrom(2, log(3, 9))).toEqual({ expired: false, from: 2 });
  });

  it("expires a cursor older than what is kept", () => {
    expect(resumeFrom(0, log(3, 9))).toEqual({ expired: true, from: 2 });
  });

  it("expires a cursor when everything after it was purged", () => {
    expect(resumeFrom(4, log(undefined, 9))).toEqual({ expired: true, from: 9 });
  });

  it("expires a cursor more than one replay behind, and replays the newest", () => {
    expect(resumeFrom(0, log(1, REPLAY_LIMIT + 50))).toEqual({ expired: true, from: 50 });
  });

  it("expires any cursor when messages may never have been stored", () => {
    expect(resumeFrom(9, log(1, 9), true)).toEqual({ expired: true, from: 9 });
  });
});

describe("echoCloseCode", () => {
  it("answers a close with the client's code when it may be sent", () => {
    for (const code of [1000, 1001, 1008, 1011, 3000, 4999]) expect(echoCloseCode(code)).toBe(code);
  });

  it("answers codes that only describe a close (none given, dropped, TLS) with 1000", () => {
    for (const code of [1005, 1006, 1015, 999, 2000, 5000]) expect(echoCloseCode(code)).toBe(1000);
  });
});
