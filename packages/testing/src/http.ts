/** The kit's local HTTP servers: one listener on 127.0.0.1 at a free port, and a body reader. */
import { createServer, type IncomingMessage, type RequestListener, type ServerResponse } from "node:http";

export interface LocalServer {
  url: string;
  close(): Promise<void>;
}

export async function listen(
  handler: (req: IncomingMessage, res: ServerResponse) => Promise<void>,
): Promise<LocalServer> {
  const listener: RequestListener = (req, res) => {
    handler(req, res).catch((error: unknown) => {
      if (!res.headersSent) json(res, 500, { error: `fanout testing kit: ${(error as Error).message}` });
      else res.destroy();
    });
  };
  const server = createServer(listener);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

export function json(res: ServerResponse, status: number, value: unknown): void {
  res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(value));
}

/** A request's headers as the Fetch API has them, for the client's webhook verifier. */
export function headersOf(req: IncomingMessage): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (typeof value === "string") headers.set(name, value);
    else if (Array.isArray(value)) for (const v of value) headers.append(name, v);
  }
  return headers;
}

/** A fresh Standard Webhooks secret: `whsec_` and 24 random bytes in base64. */
export const signingSecret = () =>
  `whsec_${Buffer.from(crypto.getRandomValues(new Uint8Array(24))).toString("base64")}`;
