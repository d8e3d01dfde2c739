/**
 * Runs before every worker test file. Storage is wiped between tests (`reset()`), but the
 * isolate's memory is not: what it keeps of a tenant's configuration must go with the storage,
 * or a test would see the previous test's config for up to 5 s.
 */
import { afterEach } from "vitest";
import { forgetTenants } from "../src/core/objects/tenant-cache";

afterEach(() => forgetTenants());
