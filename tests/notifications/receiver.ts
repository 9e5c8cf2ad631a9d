/**
 * A webhook receiver for tests: a real node:http server on 127.0.0.1 recording every
 * request (headers and raw body). `respond` decides the answer per request (status,
 * headers, delay, or no answer at all); default 200. Close it with `close()`.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";

export interface ReceivedRequest {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  rawBody: string;
  at: number;
  /**
   * When the connection closed before an answer was sent (the sender gave up: its timeout),
   * Date.now(); undefined while the request is open or once it was answered.
   */
  closedAt?: number;
}

export interface Reply {
  status?: number;
  headers?: Record<string, string>;
  body?: string;
  delayMs?: number;
  /** Never answer (the request is recorded; the connection stays open until `close()`). */
  hang?: boolean;
}

export interface Receiver {
  url: string;
  requests: ReceivedRequest[];
  respond: (req: ReceivedRequest) => Reply;
  /**
   * Resolves once `n` requests (those whose path starts with `pathPrefix`, when given) have
   * arrived (rejects after `timeoutMs`, default 20 s: only a guard against a hang, generous for a
   * loaded machine). It resolves in the same turn of the event loop as the n-th arrival: no
   * other I/O (another request, a connection closing) is handled before the caller resumes, so
   * the caller sees the other receivers exactly as they were when that request arrived.
   */
  waitFor(n: number, timeoutMs?: number, pathPrefix?: string): Promise<ReceivedRequest[]>;
  close(): Promise<void>;
}

export async function startReceiver(
  respond: (req: ReceivedRequest) => Reply = () => ({}),
): Promise<Receiver> {
  const requests: ReceivedRequest[] = [];
  let waiters: (() => boolean)[] = [];
  const receiver: Receiver = {
    url: "",
    requests,
    respond,
    waitFor(n, timeoutMs = 20_000, pathPrefix) {
      const matching = () => (pathPrefix ? requests.filter((r) => r.path.startsWith(pathPrefix)) : requests);
      return new Promise((resolve, reject) => {
        const check = () => {
          const got = matching();
          if (got.length >= n) {
            clearTimeout(timer);
            resolve(got.slice(0, n));
            return true;
          }
          return false;
        };
        const timer = setTimeout(
          () =>
            reject(
              new Error(
                `expected ${n} requests${pathPrefix ? ` to ${pathPrefix}` : ""}, got ${matching().length}`,
              ),
            ),
          timeoutMs,
        );
        if (!check()) waiters.push(check);
      });
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const entry: ReceivedRequest = {
        method: req.method ?? "",
        path: req.url ?? "",
        headers: req.headers,
        rawBody: Buffer.concat(chunks).toString("utf8"),
        at: Date.now(),
      };
      requests.push(entry);
      res.on("close", () => {
        if (!res.writableFinished) entry.closedAt = Date.now();
      });
      waiters = waiters.filter((w) => !w());
      const reply = receiver.respond(entry);
      if (reply.hang) return;
      const send = () => {
        if (res.destroyed) return;
        res.writeHead(reply.status ?? 200, { "content-type": "application/json", ...reply.headers });
        res.end(reply.body ?? "{}");
      };
      if (reply.delayMs) setTimeout(send, reply.delayMs);
      else send();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return receiver;
}
