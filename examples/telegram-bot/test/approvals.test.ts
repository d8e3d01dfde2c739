import { describe, expect, it } from "vitest";
import { approvalMessage, decidedText, pressedDecision } from "../src/approvals";
import { buttonPress } from "../src/telegram";

const request = {
  job_id: "sendpostcard-V1StGXR8_Z5j",
  chat_id: "tg-42",
  tool_name: "send_postcard",
  tool_args: { to: "Ana", text: "Hi" },
  agent: "default",
  approval_expires_at: "2026-12-05T10:30:00.000Z",
};

describe("asking in the chat", () => {
  it("says what will run, with what, until when, under Approve and Deny buttons that fit Telegram's 64 bytes", () => {
    const { text, keyboard } = approvalMessage(request);
    expect(text).toBe(
      'The assistant wants to run send_postcard:\n{\n "to": "Ana",\n "text": "Hi"\n}\nApprove it before 2026-12-05 10:30 UTC?',
    );
    expect(keyboard.inline_keyboard[0]!.map((b) => b.text)).toEqual(["Approve", "Deny"]);
    for (const button of keyboard.inline_keyboard.flat())
      expect(new TextEncoder().encode(button.callback_data).length).toBeLessThanOrEqual(64);
    expect(approvalMessage({ ...request, agent: "researcher" }).text).toMatch(/^The researcher agent wants to run/);
    expect(approvalMessage({ ...request, tool_args: { text: "x".repeat(2000) } }).text.length).toBeLessThan(800);
  });

  it("reads a pressed button back, and nothing else", () => {
    const [approve, deny] = approvalMessage(request).keyboard.inline_keyboard[0]!;
    expect(pressedDecision(approve!.callback_data)).toEqual({ decision: "approve", job_id: request.job_id });
    expect(pressedDecision(deny!.callback_data)).toEqual({ decision: "deny", job_id: request.job_id });
    for (const other of ["", "fanout:maybe:j", "other:approve:j", "fanout:approve:", "fanout:approve:j:x"])
      expect(pressedDecision(other)).toBeUndefined();
  });

  it("shows the decision in place of the question", () => {
    expect(decidedText("send_postcard", "approve", "@ana")).toBe("✅ Approved by @ana: send_postcard runs now.");
    expect(decidedText("send_postcard", "deny", null)).toBe("❌ Denied by someone: send_postcard will not run.");
    expect(decidedText("send_postcard", "expired", null)).toBe("⌛ Nobody decided in time: send_postcard was not run.");
  });

  it("takes a button press from an update, naming the presser by username, else first name", () => {
    const update = (from: Record<string, unknown>) => ({
      update_id: 1,
      callback_query: { id: "q1", from, data: "fanout:deny:j", message: { message_id: 9, chat: { id: 42 } } },
    });
    expect(buttonPress(update({ id: 1, username: "ana", first_name: "Ana" }))).toEqual({
      id: "q1",
      chat_id: 42,
      message_id: 9,
      data: "fanout:deny:j",
      by: "@ana",
    });
    expect(buttonPress(update({ id: 1, first_name: "Ana" }))?.by).toBe("Ana");
    expect(buttonPress({ update_id: 2, message: { chat: { id: 42 }, text: "hi" } })).toBeUndefined();
  });
});
