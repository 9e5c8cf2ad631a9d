/** The reference server: plain `node:http` answering a fixed small JSON body, the ceiling for the service. */
import http from "node:http";
import type { AddressInfo } from "node:net";

/** A running server with the means to stop it. */
export interface RunningServer {
  url: string;
  close(): Promise<void>;
}

const BODY = JSON.stringify({ ok: true, service: "bare", note: "fixed body" });

/** Starts the bare server on `host`:`port` (port 0: any free port). */
export async function startBareServer(host = "127.0.0.1", port = 0): Promise<RunningServer> {
  const server = http.createServer((_req, res) => {
    res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(BODY) });
    res.end(BODY);
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => resolve());
  });
  const address = server.address() as AddressInfo;
  return {
    url: `http://${host}:${address.port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
