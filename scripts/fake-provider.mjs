#!/usr/bin/env node
/**
 * A stand-in OpenAI-compatible chat-completions endpoint for trying
 * subordinates locally without a real provider (README "Subagents").
 * First it asks for the `wait` tool once, then answers with the task it got.
 */
import { createServer } from "node:http";

const PORT = Number(process.env.FAKE_PROVIDER_PORT ?? 8790);
let seq = 0;

createServer((req, res) => {
  let body = "";
  req.on("data", (chunk) => (body += chunk));
  req.on("end", () => {
    if (req.method !== "POST" || !req.url?.endsWith("/chat/completions")) return res.writeHead(404).end();
    const { model, messages } = JSON.parse(body);
    const task = messages.find((m) => m.role === "user")?.content ?? "";
    const usedTool = messages.some((m) => m.role === "tool");
    const message = usedTool
      ? { role: "assistant", content: `Done after a short wait: ${task}` }
      : {
          role: "assistant",
          content: null,
          tool_calls: [
            { id: `call_${++seq}`, type: "function", function: { name: "wait", arguments: '{"seconds":1}' } },
          ],
        };
    res.writeHead(200, { "content-type": "application/json" }).end(
      JSON.stringify({
        id: `chatcmpl-${++seq}`,
        object: "chat.completion",
        created: Math.floor(Date.now() / 1000),
        model,
        choices: [{ index: 0, message, finish_reason: usedTool ? "stop" : "tool_calls" }],
        usage: { prompt_tokens: 20, completion_tokens: 10, total_tokens: 30 },
      }),
    );
  });
}).listen(PORT, "127.0.0.1", () => console.log(`fake OpenAI-compatible provider on http://127.0.0.1:${PORT}/v1`));
