/**
 * The tenant's configuration document as the TenantDO keeps it (docs/api.md#secrets):
 * stored with its secrets sealed under CONFIG_KEY, shown with every secret
 * masked, and opened (decrypted) only for the targets a call needs. Writes
 * run one after another, each starting from the document the previous one
 * stored, so concurrent patches all land.
 */
import { defaultConfig, type TenantConfig } from "../../src/core/config/schema";
import { withCanonicalRuleTools } from "../../src/core/config-check/rule-tools";
import { importConfigKey } from "../../src/core/config/secrets";
import type { CheckedConfig, WriteConfigResult } from "../../src/core/config-check/validate";
import { maskSecrets, openSecrets, sealSecrets, SecretMissing } from "./sealed-config";

/**
 * The document as requests and `GET` see it: secrets masked, and rule names spelled as calls are,
 * once per version (a document stored before that rule kept `docs.search` in its rules).
 */
const shown = (sealed: TenantConfig): TenantConfig => withCanonicalRuleTools(maskSecrets(sealed));

export class ConfigStore {
  /** Every request reads the config: keep the parsed, masked form until the next PUT or PATCH. */
  #cached: { config: TenantConfig; version: number } | undefined;
  #key: CryptoKey | undefined;
  #openedCache: { version: number; opened: Promise<TenantConfig> } | undefined;
  /** Config writes, one after another: each starts from the document the previous one stored. */
  #writes: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly sql: SqlStorage,
    /** The CONFIG_KEY secret, read when the key is first needed. */
    private readonly configKey: () => string | undefined,
    /** Called with each newly stored (sealed) document, inside the write. */
    private readonly onStored: (sealed: TenantConfig) => void,
  ) {
    sql.exec(
      `CREATE TABLE IF NOT EXISTS config (id INTEGER PRIMARY KEY CHECK (id = 1), doc TEXT NOT NULL, version INTEGER NOT NULL)`,
    );
  }

  /** The stored document with sealed secrets, or the defaults. */
  sealed(): { config: TenantConfig; version: number } {
    const row = this.sql
      .exec<{ doc: string; version: number }>(`SELECT doc, version FROM config WHERE id = 1`)
      .toArray()[0];
    return row
      ? { config: JSON.parse(row.doc) as TenantConfig, version: row.version }
      : { config: defaultConfig(), version: 0 };
  }

  async #configKey(): Promise<CryptoKey> {
    this.#key ??= await importConfigKey(this.configKey());
    if (!this.#key) throw new Error("CONFIG_KEY is missing or is not 32 base64-encoded bytes");
    return this.#key;
  }

  /**
   * The configuration with its secrets decrypted, kept for the current version: every batch's chat
   * asks for its tools' secrets, and decrypting the document each time would be work on the hot path.
   */
  opened(): Promise<TenantConfig> {
    const { config, version } = this.sealed();
    if (this.#openedCache?.version !== version) {
      const opened = this.#configKey().then((key) => openSecrets(config, key));
      opened.catch(() => (this.#openedCache = undefined)); // a failure is not kept
      this.#openedCache = { version, opened };
    }
    return this.#openedCache.opened;
  }

  /** The stored document's version (0: the defaults), without reading the document. */
  version(): number {
    return (
      this.#cached?.version ??
      this.sql.exec<{ version: number }>(`SELECT version FROM config WHERE id = 1`).toArray()[0]?.version ??
      0
    );
  }

  /** The configuration with every secret shown as "***": what requests and `GET /v1/config` see. */
  masked(): { config: TenantConfig; version: number } {
    if (!this.#cached) {
      const { config, version } = this.sealed();
      this.#cached = { config: shown(config), version };
    }
    return this.#cached;
  }

  /** Stores what `next` makes of the stored document, once every earlier write is done. */
  write(next: (stored: TenantConfig) => CheckedConfig): Promise<WriteConfigResult> {
    const write = this.#writes.then(() => this.#store(next));
    this.#writes = write.catch(() => undefined);
    return write;
  }

  async #store(next: (stored: TenantConfig) => CheckedConfig): Promise<WriteConfigResult> {
    const previous = this.sealed();
    const checked = next(previous.config);
    if (!checked.ok) return checked;
    let sealed: TenantConfig;
    let generated: Record<string, string>;
    try {
      ({ sealed, generated } = await sealSecrets(checked.config, previous.config, await this.#configKey()));
    } catch (e) {
      if (e instanceof SecretMissing)
        return { ok: false, problems: [e.message], ...(e.code === "secret_required" ? { code: e.code } : {}) };
      throw e;
    }
    const version = previous.version + 1;
    this.sql.exec(`INSERT OR REPLACE INTO config (id, doc, version) VALUES (1, ?, ?)`, JSON.stringify(sealed), version);
    this.#cached = { config: shown(sealed), version };
    this.onStored(sealed);
    return { ok: true, config: this.#cached.config, version, generated_secrets: generated };
  }
}
