/**
 * Wire schemas of chats (docs/api.md#companion-routes), for `/openapi.json`: one chat's info, and
 * the page of top-level chats with their descendants nested, bounded as
 * `src/core/chats/chat-tree.ts` bounds the listing.
 */
import { z } from "zod";
import { usage } from "./jobs";
import { MAX_LISTED_CHILDREN, MAX_LISTED_DESCENDANTS } from "../chats/chat-tree";

const childChat = z.object({
  chat_id: z.string(),
  name: z.string(),
  level: z.number().int(),
  running_jobs: z.number().int(),
  waiting_jobs: z.number().int().describe("Of `running_jobs`, those waiting to start (a subagent slot, approval)."),
});

export const chatInfo = z.object({
  chat_id: z.string(),
  parent_chat_id: z.string().nullable(),
  level: z.number().int(),
  name: z.string(),
  children: z.array(childChat),
  running_jobs: z.number().int().describe("Its active jobs: running, or waiting to start."),
  waiting_jobs: z
    .number()
    .int()
    .describe("Of `running_jobs`, those not started yet: waiting for approval, flow room, their turn or a slot."),
  last_activity: z
    .string()
    .describe("The latest of the chat's creation and its kept jobs' acceptance, claim and end (ISO 8601)."),
});

/**
 * A listed chat and, nested, its descendants: every node has the same shape. Written out level by
 * level (max_depth is at most 5): a recursive schema would need a `$ref` that an inline OpenAPI
 * schema cannot resolve.
 */
const listedChat = (below: z.ZodType) =>
  z.object({
    chat_id: z.string(),
    parent_chat_id: z.string().nullable(),
    level: z.number().int(),
    name: z.string(),
    created_at: z.string(),
    last_activity: z.string(),
    children: z
      .array(below)
      .describe(
        `Oldest first: a chat's newest ${MAX_LISTED_CHILDREN} children at most, and ${MAX_LISTED_DESCENDANTS} descendants per top-level chat.`,
      ),
    more_children: z
      .number()
      .int()
      .optional()
      .describe("How many children were left out of `children`; GET /v1/chats/{chat_id} lists them all."),
  });
let listedTree: z.ZodType = z.never(); // below level 5 there is nothing
for (let level = 5; level >= 0; level--) listedTree = listedChat(listedTree);

export const chatList = z.object({
  chats: z.array(listedTree).describe("Top-level chats in id order, each with its descendants nested."),
  next_cursor: z.string().nullable(),
});

/** `GET /v1/chats/{chat}/usage` (docs/api.md#usage-and-cost): the last 30 days. */
export const chatUsage = z.object({
  chat_id: z.string(),
  chat: usage.describe("The chat's own work: its model requests, its tool calls, the subagents it started."),
  subtree: usage.describe("That and everything its subagents did, however deep."),
  by_day: z
    .array(z.object({ date: z.string().describe("A UTC day, YYYY-MM-DD."), usage }))
    .describe("The subtree's usage by day, oldest first; days without any are left out."),
});

/**
 * `GET /v1/chats/{chat}/transcript` (docs/api.md#a-subagents-transcript): a child chat's conversation, oldest
 * first.
 */
export const chatTranscript = z.object({
  chat_id: z.string(),
  messages: z.array(
    z.object({
      role: z.string(),
      content: z.string().nullable(),
      content_truncated: z.literal(true).optional().describe("Cut at 10,000 characters; the model had it whole."),
      tool_calls: z.array(z.object({ id: z.string(), name: z.string(), arguments: z.string() })).optional(),
      tool_call_id: z.string().optional(),
      usage: usage.optional().describe("A model turn's: what its request took."),
      at: z.string(),
    }),
  ),
});
