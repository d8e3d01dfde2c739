/**
 * Companion read routes of a chat (docs/api.md#companion-routes) and its deletion. A chat that
 * does not exist is a 404 and these routes never create it.
 */
import { Hono } from "hono";
import type { AppEnv } from "../auth/app-env";
import { quoteName } from "../../core/calls/names";
import { ApiError, unavailable } from "../../core/http/errors";
import type { JobRecord } from "../../core/jobs/job";
import type { BatchRecord } from "../../core/events/batch-view";
import { chatLimits } from "../../core/config/chat-limits";
import { chatIdParam, chatNotFound, chatStub, tenantConfig, tenantStub } from "../requests/context";
import { pageLimit } from "../requests/page-limit";

const deletionPending = (chatId: string) =>
  unavailable(
    `Chat '${quoteName(chatId)}' is being deleted and no longer readable, but a part of its subtree could not be reached yet; fanout keeps retrying it. ` +
      "Repeat the DELETE to confirm: it answers 200 once the whole subtree is gone.",
  );

const found = <T>(value: T | null, chatId: string): T => {
  if (value === null) throw chatNotFound(chatId);
  return value;
};

export const chatRoutes = new Hono<AppEnv>()
  .get("/chats", async (c) => {
    const limit = pageLimit(c.req.query("limit"), { fallback: 50, max: 200 });
    return c.json(await tenantStub(c).listChats(c.req.query("cursor") ?? null, limit));
  })
  .get("/chats/:chat_id", async (c) => {
    const chatId = chatIdParam(c);
    return c.json(found(await chatStub(c, chatId).info(), chatId));
  })
  .delete("/chats/:chat_id", async (c) => {
    const chatId = chatIdParam(c);
    const answer = await chatStub(c, chatId).deleteChat();
    if (answer === "not_found") throw chatNotFound(chatId);
    // 200 only once nothing of the subtree is left; until then the chat reads as 404 and its alarm goes on.
    if (answer === "pending") throw deletionPending(chatId);
    return c.json({ status: "deleted", chat_id: chatId });
  })
  .get("/chats/:chat_id/jobs", async (c) => {
    const chatId = chatIdParam(c);
    const config = await tenantConfig(c);
    return c.json(found(await chatStub(c, chatId).listJobs(chatLimits(config)), chatId));
  })
  .get("/chats/:chat_id/job-records", async (c) => {
    const chatId = chatIdParam(c);
    const limit = pageLimit(c.req.query("limit"), { fallback: 24, max: 100 });
    // The RPC type mapping cannot carry `tool_args`' open shape; the values are plain JSON.
    const page = (await chatStub(c, chatId).jobRecords(limit, c.req.query("before") ?? null)) as {
      records: Omit<JobRecord, "content">[];
      next_before: string | null;
    } | null;
    return c.json(found(page, chatId));
  })
  .get("/chats/:chat_id/jobs/:job_id", async (c) => {
    const chatId = chatIdParam(c);
    const jobId = c.req.param("job_id");
    // The RPC type mapping cannot carry `tool_args`' open shape; the value itself is plain JSON.
    const answer = (await chatStub(c, chatId).getJob(jobId)) as { record: JobRecord | null } | null;
    const { record } = found(answer, chatId);
    if (!record)
      throw new ApiError(
        404,
        "job_not_found",
        `Job '${quoteName(jobId)}' not found in chat '${quoteName(chatId)}'; it may have been purged.`,
      );
    return c.json(record);
  })
  .get("/chats/:chat_id/batches/:batch_id", async (c) => {
    const chatId = chatIdParam(c);
    const batchId = c.req.param("batch_id");
    const config = await tenantConfig(c);
    // The RPC type mapping cannot carry `context`'s open shape; the value itself is plain JSON.
    const answer = (await chatStub(c, chatId).getBatch(batchId, chatLimits(config))) as {
      record: BatchRecord | null;
    } | null;
    const { record } = found(answer, chatId);
    if (!record)
      throw new ApiError(
        404,
        "unknown_batch",
        `No batch '${quoteName(batchId)}' in chat '${quoteName(chatId)}' (or its jobs were purged).`,
      );
    return c.json(record);
  })
  .get("/chats/:chat_id/extras", async (c) => {
    const chatId = chatIdParam(c);
    const { text } = found(await chatStub(c, chatId).extras(), chatId);
    if (text === null) return c.body(null, 204);
    return c.text(text);
  })
  .get("/chats/:chat_id/log", async (c) => {
    const chatId = chatIdParam(c);
    return c.json(found(await chatStub(c, chatId).logRows(), chatId));
  })
  .get("/chats/:chat_id/transcript", async (c) => {
    const chatId = chatIdParam(c);
    const limit = pageLimit(c.req.query("limit"), { fallback: 100, max: 500 });
    return c.json({ chat_id: chatId, ...found(await chatStub(c, chatId).transcript(limit), chatId) });
  })
  .get("/chats/:chat_id/usage", async (c) => {
    const chatId = chatIdParam(c);
    return c.json({ chat_id: chatId, ...found(await chatStub(c, chatId).usage(), chatId) });
  });
