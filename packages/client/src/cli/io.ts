/**
 * What a CLI command reads and writes besides the service: environment,
 * output streams, stdin and the signal that ends `watch`. A module of its
 * own because `main.ts` and every command module it registers take it, and
 * a command must not import the module that dispatches to it.
 */

export interface CliIo {
  env: Record<string, string | undefined>;
  stdout: { write(text: string): unknown; isTTY?: boolean };
  stderr: { write(text: string): unknown };
  readStdin(): Promise<string>;
  /** Ends `watch` (Ctrl-C in a terminal). */
  signal?: AbortSignal;
}
