/** The WebSocket an event stream opens on each runtime, and `ws` (Node 20's) against the real service. */
import { WebSocket as WsWebSocket } from "ws";
import { describe, expect, it } from "vitest";
import { NO_WEBSOCKET, webSocketClass } from "../src/websocket.js";
import { chat, client, wait } from "./helpers.js";

describe("the WebSocket an event stream opens", () => {
  const Given = class {} as unknown as typeof WebSocket;

  it("is the one passed in, else the runtime's own", async () => {
    expect(await webSocketClass(Given)).toBe(Given);
    expect(await webSocketClass(undefined)).toBe(globalThis.WebSocket);
  });

  it("is the `ws` package's on a runtime without one (Node 20)", async () => {
    expect(await webSocketClass(undefined, null)).toBe(WsWebSocket);
  });

  it("is a clear error when there is neither", async () => {
    const missing = async () => {
      throw new Error("Cannot find package 'ws'");
    };
    await expect(webSocketClass(undefined, null, missing)).rejects.toThrow(NO_WEBSOCKET);
    await expect(webSocketClass(undefined, null, async () => ({}))).rejects.toThrow(NO_WEBSOCKET);
  });

  it("`ws` carries a chat's events like the runtime's own", async () => {
    const id = chat("ws");
    const fanout = client({ WebSocket: WsWebSocket as unknown as typeof WebSocket });
    await fanout.parallel(id, { tool_calls: [wait(0.01)] });
    const types: string[] = [];
    for await (const event of await fanout.events(id, { after: 0 })) {
      types.push(event.type);
      if (event.type === "batch.finished") break;
    }
    expect(types).toEqual(["chat.created", "job.started", "job.finished", "batch.finished"]);
  });
});
