/**
 * `fanout config get|patch|put`: the tenant configuration from a terminal.
 * `patch` sends a JSON Merge Patch, so only the keys it names change; `put`
 * replaces the whole document. Signing secrets fanout generates are printed
 * this once (GET never shows them), with a line saying to store them.
 */
import { readFile } from "node:fs/promises";
import type { Fanout } from "../client.js";
import type { ConfigAnswer, ConfigDocument, ConfigPatch } from "../types.js";
import type { CliIo } from "./io.js";

export const CONFIG_USAGE = `  config   get                             the configuration (secrets shown as "***")
  config   patch <file|-|json>             change only the keys a JSON Merge Patch names (null removes one)
  config   put <file|->                    replace the whole configuration (keys left out take defaults)`;

class ConfigUsage extends Error {}

export async function configCommand(fanout: Fanout, args: string[], o: { json: boolean }, io: CliIo): Promise<number> {
  try {
    const [action, source, ...extra] = args;
    if (extra.length || (action === "get" && source)) throw new ConfigUsage(`unexpected '${extra[0] ?? source}'`);
    switch (action) {
      case "get": {
        const config = await fanout.config();
        io.stdout.write(`${o.json ? JSON.stringify(config) : JSON.stringify(config, null, 2)}\n`);
        return 0;
      }
      case "patch":
        return written(await fanout.patchConfig((await readDocument(source, io)) as ConfigPatch), o, io);
      case "put":
        return written(await fanout.putConfig((await readDocument(source, io)) as ConfigDocument), o, io);
      default:
        throw new ConfigUsage(action ? `unknown config command '${action}'` : "say what to do with the configuration");
    }
  } catch (e) {
    if (!(e instanceof ConfigUsage)) throw e;
    io.stderr.write(`fanout: ${e.message}\n\nUsage:\n${CONFIG_USAGE}\n`);
    return 2;
  }
}

/** The document, then the generated secrets, shown this once. */
function written(answer: ConfigAnswer, o: { json: boolean }, io: CliIo): number {
  const { generated_secrets: generated, ...config } = answer;
  const names = Object.keys(generated);
  if (o.json) {
    io.stdout.write(`${JSON.stringify(answer)}\n`);
    if (names.length) io.stderr.write(`fanout: generated_secrets are shown only in this answer: store them now.\n`);
    return 0;
  }
  io.stdout.write(`${JSON.stringify(config, null, 2)}\n`);
  if (names.length) {
    const width = Math.max(...names.map((n) => n.length));
    io.stdout.write(
      `\nGenerated secrets, shown only this once: store them now (your bot and tools verify signatures with them).\n`,
    );
    for (const name of names) io.stdout.write(`  ${name.padEnd(width)}  ${generated[name]}\n`);
  }
  return 0;
}

/**
 * A JSON object from a file, standard input (`-`) or the argument itself (`{…}`; `[` is taken as JSON too, to
 * refuse it).
 */
async function readDocument(source: string | undefined, io: CliIo): Promise<Record<string, unknown>> {
  if (!source) throw new ConfigUsage("name a file, - for standard input, or give the JSON itself");
  const inline = /^\s*[{[]/.test(source);
  let text: string;
  try {
    text = inline ? source : source === "-" ? await io.readStdin() : await readFile(source, "utf8");
  } catch (e) {
    throw new ConfigUsage(`cannot read ${source}: ${(e as Error).message}`);
  }
  const what = inline ? "the JSON given" : source === "-" ? "standard input" : source;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw new ConfigUsage(`${what} is not JSON: ${(e as Error).message}`);
  }
  if (!value || typeof value !== "object" || Array.isArray(value))
    throw new ConfigUsage(`${what} must hold a JSON object`);
  return value as Record<string, unknown>;
}
