/**
 * WebSocket tickets (docs/api.md#live-streams): browsers cannot set headers on a WebSocket and
 * API keys are never accepted in URLs, so a client trades its key for a
 * single-use ticket valid 60 s, passed as `?ticket=`. A ticket names its
 * tenant (`<tenant>.<32 random characters>`) so the worker knows which
 * TenantDO can redeem it.
 */
import { nanoid } from "nanoid";

export const TICKET_TTL_SECONDS = 60;

export const newTicket = (tenant: string) => `${tenant}.${nanoid(32)}`;

/** The tenant a ticket claims to belong to; redeeming it there proves it. */
export const ticketTenant = (ticket: string): string | undefined =>
  /^([a-z0-9][a-z0-9_-]{0,31})\.[A-Za-z0-9_-]{32}$/.exec(ticket)?.[1];
