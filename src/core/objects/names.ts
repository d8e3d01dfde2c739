/**
 * Durable Object names (docs/api.md#authentication-tenants-and-chats). Each carries a separator (`/`) that tenant,
 * chat and job ids cannot contain, so no id can be crafted to reach another
 * tenant's object.
 */
export const chatName = (tenant: string, chatId: string) => `chat/${tenant}/${chatId}`;
export const tenantName = (tenant: string) => `tenant/${tenant}`;
/**
 * A chat's runner object `index` (docs/architecture.md#where-a-call-runs): the chat's own pool, so no chat
 * waits behind another's calls.
 */
export const callRunnerName = (tenant: string, chatId: string, index: number) => `runner/${tenant}/${chatId}/${index}`;

/** `chat_id`: 1–128 of `[A-Za-z0-9._:@!-]`, not made only of dots (docs/api.md#authentication-tenants-and-chats). */
export const CHAT_ID_PATTERN = /^[A-Za-z0-9._:@!-]{1,128}$/;
export const isValidChatId = (id: string) => CHAT_ID_PATTERN.test(id) && !/^\.+$/.test(id);
/** One of a tenant's flow shards (docs/architecture.md#flow-objects): the lines whose keys hash to `shard`. */
export const flowName = (tenant: string, shard: number) => `flow/${tenant}/${shard}`;
/** A tenant's spending under `limits.spend` (docs/architecture.md#spending-limits). */
export const spendName = (tenant: string) => `spend/${tenant}`;
/** The budget of a top-level batch (docs/architecture.md#budgets). */
export const budgetName = (tenant: string, rootChat: string, batchId: string) =>
  `budget/${tenant}/${rootChat}/${batchId}`;
