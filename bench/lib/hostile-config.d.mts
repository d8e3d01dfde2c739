/** Types of hostile-config.mjs, for the worker tests that share its documents with the drill. */
export const PRIVATE_URLS: string[];
export function hostileConfig(i: number): { method: "PUT" | "PATCH"; body: Record<string, unknown>; refuse: boolean };
