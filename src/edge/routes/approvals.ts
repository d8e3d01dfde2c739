/**
 * Approvals (docs/api.md#approvals): a person's decision on a call that waits for one, and the
 * tenant's list of such calls.
 */
import { Hono } from "hono";
import type { AppEnv } from "../auth/app-env";
import { approvalDecision } from "../../core/api/approvals";
import { quoteName } from "../../core/calls/names";
import { listedApproval } from "../../core/approvals/approval";
import { chatLimits } from "../../core/config/chat-limits";
import { readJsonBody } from "../../core/http/json-body";
import { ApiError, badRequest } from "../../core/http/errors";
import { chatIdParam, chatNotFound, chatStub, tenantConfig, tenantStub } from "../requests/context";
import { pageLimit } from "../requests/page-limit";

const DECISION_BODY_BYTES = 4096;

export const approvalRoutes = new Hono<AppEnv>()
  .post("/chats/:chat_id/jobs/:job_id/approval", async (c) => {
    const chatId = chatIdParam(c);
    const jobId = c.req.param("job_id");
    const parsed = approvalDecision.safeParse(await readJsonBody(c.req.raw, DECISION_BODY_BYTES));
    if (!parsed.success) {
      throw badRequest(
        "invalid_decision",
        'Body must be {"decision": "approve" | "deny", "reason"?: ≤ 500 characters, "by"?: ≤ 128 characters}.',
      );
    }
    const config = await tenantConfig(c);
    const { decision, reason = null, by = null } = parsed.data;
    const answer = await chatStub(c, chatId).decideApproval(jobId, { decision, reason, by }, chatLimits(config));
    if (answer === null) throw chatNotFound(chatId);
    switch (answer.outcome) {
      case "decided":
      case "repeat":
        return c.json(answer.snapshot);
      case "unknown":
        throw new ApiError(
          404,
          "job_not_found",
          `Job '${quoteName(jobId)}' not found in chat '${quoteName(chatId)}'; it may have been purged.`,
        );
      case "conflict":
        throw new ApiError(
          409,
          "already_decided",
          `This call was already ${answer.status}; a decision is taken once.`,
          { status: answer.status },
        );
      case "not_awaiting":
        throw new ApiError(
          409,
          "not_awaiting_approval",
          `Job '${quoteName(jobId)}' is not waiting for an approval: no approval rule matched its call, or it has ended.`,
        );
    }
  })
  .get("/approvals", async (c) => {
    const status = c.req.query("status") ?? "pending";
    if (status !== "pending" && status !== "decided")
      throw badRequest("invalid_status", "status is `pending` (the default) or `decided`.");
    const limit = pageLimit(c.req.query("limit"), { fallback: 50, max: 200 });
    const page = await tenantStub(c).listApprovals(status, c.req.query("cursor") ?? null, limit);
    return c.json({ approvals: page.approvals.map(listedApproval), next_cursor: page.next_cursor });
  });
