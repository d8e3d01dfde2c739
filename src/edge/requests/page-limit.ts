/**
 * `?limit=` of a paged listing (`GET /v1/chats`, a chat's job records): an integer from 1 to the
 * listing's most, or its default when absent.
 */
import { z } from "zod";
import { badRequest } from "../../core/http/errors";

export interface PageSize {
  /** The page size when `limit` is absent. */
  fallback: number;
  max: number;
}

export function pageLimit(raw: string | undefined, size: PageSize): number {
  if (raw === undefined) return size.fallback;
  const parsed = z.coerce.number().int().min(1).max(size.max).safeParse(raw);
  if (!parsed.success) throw badRequest("invalid_limit", `\`limit\` must be an integer from 1 to ${size.max}.`);
  return parsed.data;
}
