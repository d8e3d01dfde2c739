/** A webhook inbox of the fake receiver (test/setup/fake-receiver.ts), for the worker tests. */
import { toolConfig, toolServer } from "./helpers";

export const SECRET = "whsec_dGVzdC13ZWJob29rLXNlY3JldC0xMjM0NTY3OA==";
export const RFC3339_MS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

export interface Received {
  headers: Record<string, string>;
  body: string;
  status: number;
  at: number;
}

/** An inbox of the caller's own (test files run at once); `statuses` are answered in arrival order, then 200. */
export async function inbox(name: string, statuses: number[] = []) {
  await fetch(`${toolServer()}/__hooks/script`, { method: "POST", body: JSON.stringify({ inbox: name, statuses }) });
  return `${toolServer()}/hooks/${name}`;
}

export const received = async (name: string): Promise<Received[]> =>
  (await fetch(`${toolServer()}/__hooks/received?inbox=${name}`)).json();

export const webhookConfig = (url: string, more: Record<string, unknown> = {}) =>
  toolConfig({ webhook: { url, secret: SECRET }, ...more });
