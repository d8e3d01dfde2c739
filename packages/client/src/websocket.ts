/**
 * Which WebSocket an event stream opens: the one passed in the options, else
 * the runtime's own (Node 22, Workers, Deno, browsers), else the `ws` package
 * (Node 20 has none of its own; `ws` is an optional dependency of this
 * package, so it is there unless optional dependencies were left out).
 */

/** What loads `ws`: the package's own module, or a refusal when it is not installed. */
export type PackageLoader = (name: string) => Promise<{ WebSocket?: unknown; default?: unknown }>;

// The name is not a literal so that bundlers for browsers and Workers, which have a WebSocket of
// their own, never try to resolve or include `ws`.
const WS_PACKAGE = "ws";
const load: PackageLoader = (name) => import(/* @vite-ignore */ name);

export const NO_WEBSOCKET =
  "Fanout: this runtime has no WebSocket (Node 20) and the `ws` package is not installed: `npm install ws`, " +
  "run on Node 22 or later, or pass a WebSocket class as `WebSocket` in the Fanout options";

/** `runtime` is the runtime's own WebSocket (null: it has none), `loader` what loads `ws`; both for tests. */
export async function webSocketClass(
  given: typeof WebSocket | undefined,
  runtime: typeof WebSocket | null = globalThis.WebSocket ?? null,
  loader: PackageLoader = load,
): Promise<typeof WebSocket> {
  if (given) return given;
  if (typeof runtime === "function") return runtime;
  let module: Awaited<ReturnType<PackageLoader>>;
  try {
    module = await loader(WS_PACKAGE);
  } catch {
    throw new TypeError(NO_WEBSOCKET);
  }
  // `ws` speaks the standard API (addEventListener, readyState, send, close) its events need.
  const found = module.WebSocket ?? module.default;
  if (typeof found !== "function") throw new TypeError(NO_WEBSOCKET);
  return found as typeof WebSocket;
}
