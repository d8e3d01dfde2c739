/** The Telegram summary of a finished subordinate (docs/api.md#hand-back-and-im-delivery). */
import { describe, expect, it } from "vitest";
import { subagentSummary, telegramChatId } from "../../src/core/notify/telegram";

describe("subagentSummary", () => {
  it("heads the first 500 characters with 【label】done or failed", () => {
    expect(subagentSummary("picnic", true, "All set.")).toBe("【picnic】done\nAll set.");
    expect(subagentSummary("table", false, "No tables left.")).toBe("【table】failed\nNo tables left.");
    expect(subagentSummary("quiet", true, null)).toBe("【quiet】done");
  });

  it("counts characters, never splitting one", () => {
    const text = "😀".repeat(600);
    const body = subagentSummary("x", true, text).split("\n")[1]!;
    expect([...body]).toHaveLength(500);
    expect(body).toBe("😀".repeat(500));
  });
});

describe("telegramChatId", () => {
  it("reads the chat id of a notify option, if any", () => {
    expect(telegramChatId('{"telegram_chat_id":-100123}')).toBe(-100123);
    expect(telegramChatId('{"telegram_chat_id":"@channel"}')).toBe("@channel");
    expect(telegramChatId(null)).toBeUndefined();
  });
});
