/** A TCP proxy in front of the service whose connections a test can cut, as a network change or a deploy would. */
import { connect, createServer, type Socket } from "node:net";

export async function cuttableProxy(target: string) {
  const { hostname, port } = new URL(target);
  const open = new Set<Socket>();
  const server = createServer((downstream) => {
    const upstream = connect(Number(port), hostname);
    for (const s of [downstream, upstream]) {
      open.add(s);
      s.on("error", () => {});
      s.on("close", () => {
        open.delete(s);
        downstream.destroy();
        upstream.destroy();
      });
    }
    downstream.pipe(upstream);
    upstream.pipe(downstream);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${address.port}`,
    /** Drops every connection through the proxy; new ones still get through. */
    cut: () => {
      for (const s of open) s.destroy();
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of open) s.destroy();
        server.close(() => resolve());
      }),
  };
}
