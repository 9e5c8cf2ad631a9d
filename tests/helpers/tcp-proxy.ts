/**
 * A TCP proxy that tests control, for fault injection in front of PostgreSQL (or any TCP
 * service on loopback). It listens on 127.0.0.1 on a free port and forwards every
 * connection to `target`. Its mode decides what happens to traffic:
 *
 * - `pass`: bytes flow both ways (the default);
 * - `blackhole`: connections stay open but every byte is dropped in both directions, and new
 *   connections are accepted and never answered — a network partition where packets vanish
 *   and no reset arrives;
 * - `down`: every open connection is reset (RST) and new ones are reset at once — a server
 *   that crashed or a connection the network cut.
 *
 * `flap()` alternates `down` and `pass` for a number of cycles. Connections made while
 * blackholed stay dead after the mode returns to `pass` (as a real partition leaves them).
 */
import net from "node:net";

export type ProxyMode = "pass" | "blackhole" | "down";

/** A running proxy. */
export interface TcpProxy {
  /** Port on 127.0.0.1. */
  port: number;
  /** The mode now. */
  mode(): ProxyMode;
  /** Switches mode; `down` resets every open connection at once. */
  setMode(mode: ProxyMode): void;
  /** Resets every open connection once, then keeps passing traffic. */
  resetAll(): void;
  /** `cycles` times: down for `downMs`, then pass for `upMs`. Resolves when done (mode `pass`). */
  flap(cycles: number, downMs: number, upMs: number): Promise<void>;
  /** Number of client connections accepted since start. */
  accepted(): number;
  /**
   * Number of chunks dropped so far (either direction) by `blackhole` mode: lets a test wait
   * until what a client sent has really been swallowed, instead of sleeping.
   */
  dropped(): number;
  /** `url` (a postgres:// URL) with its host and port replaced by the proxy's. */
  rewriteUrl(url: string): string;
  /** Stops listening and destroys every connection. */
  close(): Promise<void>;
}

interface Pair {
  client: net.Socket;
  upstream: net.Socket | null;
  dead: boolean;
}

/** Starts a proxy to `target` (host defaults to 127.0.0.1). */
export async function startTcpProxy(target: { host?: string; port: number }): Promise<TcpProxy> {
  const host = target.host ?? "127.0.0.1";
  let mode: ProxyMode = "pass";
  let count = 0;
  let drops = 0;
  const pairs = new Set<Pair>();

  const kill = (pair: Pair) => {
    pair.dead = true;
    if (!pair.client.destroyed) pair.client.resetAndDestroy();
    if (pair.upstream && !pair.upstream.destroyed) pair.upstream.resetAndDestroy();
    pairs.delete(pair);
  };

  const server = net.createServer((client) => {
    count += 1;
    client.on("error", () => {});
    if (mode === "down") {
      client.resetAndDestroy();
      return;
    }
    const pair: Pair = { client, upstream: null, dead: mode === "blackhole" };
    pairs.add(pair);
    client.on("close", () => kill(pair));
    if (pair.dead) {
      // Accepted, never answered: whatever the client sends is dropped.
      client.on("data", () => {
        drops += 1;
      });
      return;
    }
    const upstream = net.connect({ host, port: target.port });
    pair.upstream = upstream;
    upstream.on("error", () => kill(pair));
    upstream.on("close", () => kill(pair));
    client.on("data", (chunk) => {
      if (mode === "blackhole" || pair.dead) {
        pair.dead = true;
        drops += 1;
        return;
      }
      upstream.write(chunk);
    });
    upstream.on("data", (chunk) => {
      if (mode === "blackhole" || pair.dead) {
        pair.dead = true;
        drops += 1;
        return;
      }
      client.write(chunk);
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const port = (server.address() as net.AddressInfo).port;

  const proxy: TcpProxy = {
    port,
    mode: () => mode,
    setMode(next) {
      mode = next;
      if (next === "down") for (const pair of [...pairs]) kill(pair);
    },
    resetAll() {
      for (const pair of [...pairs]) kill(pair);
    },
    async flap(cycles, downMs, upMs) {
      for (let i = 0; i < cycles; i += 1) {
        proxy.setMode("down");
        await new Promise((r) => setTimeout(r, downMs));
        proxy.setMode("pass");
        await new Promise((r) => setTimeout(r, upMs));
      }
    },
    accepted: () => count,
    dropped: () => drops,
    rewriteUrl(url) {
      const parsed = new URL(url);
      parsed.hostname = "127.0.0.1";
      parsed.port = String(port);
      return parsed.toString();
    },
    async close() {
      for (const pair of [...pairs]) kill(pair);
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  return proxy;
}
