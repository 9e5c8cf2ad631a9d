/**
 * Loopback stand-in for an OSRM server's Table service (`/table/v1/driving/...`), for tests.
 * Listens on 127.0.0.1, port 0 (any free port), and speaks the real response format:
 * `{ code: "Ok", distances: [[meters]], durations: [[seconds]], sources: [...], destinations: [...] }`.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/** How the stub answers the next requests. */
export type OsrmStubMode =
  | { kind: "ok"; meters: number; seconds: number }
  | { kind: "no-route" }
  | { kind: "status"; status: number }
  | { kind: "garbage" }
  | { kind: "hang" };

/** A running stub. */
export interface OsrmStub {
  /** Base URL to use as OSRM_URL, e.g. "http://127.0.0.1:43123". */
  readonly url: string;
  /** Path and query of every request received, in order. */
  readonly requests: string[];
  /** Changes how later requests are answered. */
  setMode(mode: OsrmStubMode): void;
  /** Stops the server, dropping hanging connections. */
  close(): Promise<void>;
}

function parseTablePath(path: string): Array<[number, number]> | null {
  const match = /^(?:\/[^?]*)?\/table\/v1\/driving\/([^?]+)/.exec(path);
  if (!match?.[1]) return null;
  const points = match[1].split(";").map((pair) => pair.split(",").map(Number));
  if (points.some((p) => p.length !== 2 || p.some((n) => !Number.isFinite(n)))) return null;
  return points.map((p) => [p[0] ?? 0, p[1] ?? 0]);
}

/** Starts the stub; answers `ok` with 30 km / 25 min until `setMode` says otherwise. */
export async function startOsrmStub(): Promise<OsrmStub> {
  let mode: OsrmStubMode = { kind: "ok", meters: 30_000, seconds: 1500 };
  const requests: string[] = [];
  const server: Server = createServer((req, res) => {
    const path = req.url ?? "";
    requests.push(path);
    const current = mode;
    if (current.kind === "hang") return; // never answers
    if (current.kind === "status") {
      res.writeHead(current.status, { "content-type": "text/plain" }).end("Internal Server Error");
      return;
    }
    if (current.kind === "garbage") {
      res.writeHead(200, { "content-type": "application/json" }).end("<html>not json");
      return;
    }
    const points = parseTablePath(path);
    if (!points) {
      res.writeHead(400, { "content-type": "application/json" });
      res.end(JSON.stringify({ code: "InvalidUrl", message: "URL string malformed close to position 1" }));
      return;
    }
    const waypoint = (p: [number, number]) => ({ hint: "", distance: 0, name: "", location: p });
    const body =
      current.kind === "no-route"
        ? { code: "Ok", distances: [[null]], durations: [[null]] }
        : {
            code: "Ok",
            distances: [[current.meters]],
            durations: [[current.seconds]],
            sources: [waypoint(points[0] ?? [0, 0])],
            destinations: [waypoint(points[1] ?? [0, 0])],
          };
    res.writeHead(200, { "content-type": "application/json; charset=UTF-8" }).end(JSON.stringify(body));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    setMode(next) {
      mode = next;
    },
    close() {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
