/** Resuming a live stream (SPEC §6): from the cursor, or `cursor.expired` when something the client missed is gone. */
import { describe, expect, it } from "vitest";
import { REPLAY_LIMIT, resumeFrom, type StreamLog } from "../../durable-objects/shared/live-stream";

const log = (oldest: number | undefined, latest: number): StreamLog => ({ oldest: () => oldest, latest: () => latest, after: () => [] });

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
