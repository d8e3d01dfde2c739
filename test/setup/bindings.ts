/** Secrets the test worker runs with. Local-only values; nothing here is used in a deployment. */
export const TEST_KEYS = {
  acme: "test-key-acme",
  acmeRotated: "test-key-acme-next",
  globex: "test-key-globex",
  /** Only the rate-limit test sends with it: it spends the key's whole allowance. */
  throttled: "test-key-throttled",
} as const;

export const TEST_BINDINGS = {
  API_KEYS: `acme:${TEST_KEYS.acme}, acme:${TEST_KEYS.acmeRotated},globex:${TEST_KEYS.globex},throttled:${TEST_KEYS.throttled}`,
  // 32 zero bytes, base64: a fixed key keeps test runs reproducible.
  CONFIG_KEY: "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=",
  ALLOW_PRIVATE_EGRESS: "true",
  CORS_ORIGINS: "https://dash.example",
};
