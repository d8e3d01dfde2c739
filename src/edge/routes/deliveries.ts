/**
 * Webhook deliveries (docs/api.md#deliveries-redelivery-and-a-test-event): sending a kept event again, and a test
 * event that shows at once what the receiver answers. Listing a chat's kept
 * events by delivery state shares its path with the chat's live stream, so
 * `./events` serves it.
 */
import { Hono } from "hono";
import { z } from "zod";
import type { AppEnv } from "../auth/app-env";
import { badRequest, fromRefusal } from "../../core/http/errors";
import { noWebhook } from "../../core/webhooks/deliveries";
import { sendTestEvent } from "../../core/webhooks/test-event";
import { chatIdParam, chatNotFound, chatStub, tenantConfig, tenantStub } from "../requests/context";

/** Event ids are `evt_` and a nanoid; anything else cannot name one. */
const eventIdParam = z.string().regex(/^evt_[A-Za-z0-9_-]{1,64}$/);

export const deliveryRoutes = new Hono<AppEnv>()
  .post("/chats/:chat_id/events/:event_id/redeliver", async (c) => {
    const chatId = chatIdParam(c);
    const eventId = eventIdParam.safeParse(c.req.param("event_id"));
    if (!eventId.success)
      throw badRequest(
        "invalid_event_id",
        "An event id looks like `evt_…`: the `id` of an event, and the webhook-id header of its deliveries.",
      );
    const config = await tenantConfig(c);
    const answer = await chatStub(c, chatId).redeliver(eventId.data, config.webhook !== null);
    if (answer === null) throw chatNotFound(chatId);
    if (!answer.ok) throw fromRefusal(answer);
    return c.json(answer.delivery, 202);
  })
  .post("/webhook/test", async (c) => {
    const tenant = c.get("tenant");
    const target = await tenantStub(c).webhookTarget();
    if (!target) throw noWebhook("then send the test event");
    return c.json(await sendTestEvent(target, tenant, c.env.ALLOW_PRIVATE_EGRESS === "true"));
  });
