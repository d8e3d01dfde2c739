/**
 * The local service that `npm start` runs in the fanout repository
 * (scripts/dev.mjs reads these too): where the CLI goes when FANOUT_URL is
 * unset, so trying fanout needs no setup at all. The key is local only:
 * a deployed worker has no key until its API_KEYS secret gives it one.
 */
export const LOCAL_PORT = 8787;
export const LOCAL_URL = `http://127.0.0.1:${LOCAL_PORT}`;
export const LOCAL_TENANT = "dev";
export const LOCAL_KEY = "fanout-local-dev-key";
