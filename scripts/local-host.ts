/**
 * The local host behind `npm start`: serves every `api/` file at its Vercel path
 * (dynamic `[name]` segments included), applies `vercel.json` rewrites and headers
 * (path-to-regexp 6, the syntax Vercel uses), serves `public/`, and runs
 * `vercel.json`'s crons on their schedules with croner. Rewrites apply only when no
 * file matches, as on Vercel. Not a framework: a Node `http` server that turns each
 * request into a Web `Request` and streams the handler's `Response` back.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { readFile } from "node:fs/promises";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { Readable } from "node:stream";
import { pathToFileURL } from "node:url";
import { Cron } from "croner";
import mime from "mime-types";
import { match, pathToRegexp } from "path-to-regexp";
import { getConfig } from "../lib/config.js";
import { SOCKET_IP_HEADER } from "../lib/http/client-ip.js";
import { newRequestId } from "../lib/http/request-id.js";
import { completeBodyText, routeNotFound } from "../lib/http/response.js";
import { describeError } from "../lib/log-error.js";

type WebHandler = (request: Request) => Promise<Response>;

interface ApiRoute {
  file: string;
  /** URL pattern, e.g. /api/webhooks/:webhook_id/failures */
  pattern: string;
  matcher: ReturnType<typeof match>;
  dynamic: number;
}

interface VercelConfig {
  rewrites?: { source: string; destination: string }[];
  headers?: { source: string; headers: { key: string; value: string }[] }[];
  crons?: { path: string; schedule: string }[];
}

/** Options of `startLocalHost`. */
export interface LocalHostOptions {
  /** Project root holding api/, public/ and vercel.json. */
  root: string;
  port: number;
  host: string;
  /** Run the crons of vercel.json (default true). */
  crons?: boolean;
  log?: (line: string) => void;
  /**
   * Answers a request before the api/ routes and public/ files when it returns a Response
   * (the local control channel and the development mail viewer: scripts/local-control.ts).
   * Receives the request with the socket address in SOCKET_IP_HEADER.
   */
  intercept?: (request: Request) => Promise<Response | undefined>;
}

/** A running local host. */
export interface LocalHost {
  url: string;
  port: number;
  /** Calls one route in-process, as a cron would. */
  invoke(pathname: string, init?: RequestInit): Promise<Response>;
  close(): Promise<void>;
}

/** Lists api/ files as routes, static ones before dynamic ones (Vercel's precedence). */
export function discoverRoutes(apiDir: string): ApiRoute[] {
  const routes: ApiRoute[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir).sort()) {
      const full = path.join(dir, name);
      if (statSync(full).isDirectory()) {
        walk(full);
        continue;
      }
      if (!/\.(ts|js|mjs)$/.test(name) || name.endsWith(".d.ts") || name.startsWith("_")) continue;
      const rel = path
        .relative(apiDir, full)
        .replace(/\\/g, "/")
        .replace(/\.(ts|js|mjs)$/, "");
      const segments = rel.split("/");
      if (segments.some((s) => s.startsWith("_"))) continue;
      if (segments[segments.length - 1] === "index") segments.pop();
      const pattern = `/api${segments.length ? "/" : ""}${segments.map((s) => s.replace(/^\[(\w+)\]$/, ":$1")).join("/")}`;
      routes.push({
        file: full,
        pattern,
        matcher: match(pattern, { decode: decodeURIComponent }),
        dynamic: segments.filter((s) => s.startsWith("[")).length,
      });
    }
  };
  walk(apiDir);
  return routes.sort((a, b) => a.dynamic - b.dynamic);
}

/**
 * Whether `candidate` (an absolute path) is `dir` itself or inside it. Compares path segments
 * (path.relative), so a sibling such as `public-secret/` next to `public/` is outside, which a
 * plain string-prefix test would miss.
 */
export function isInside(dir: string, candidate: string): boolean {
  const rel = path.relative(dir, candidate);
  return rel === "" || (rel !== ".." && !rel.startsWith(`..${path.sep}`) && !path.isAbsolute(rel));
}

function substitute(destination: string, params: Record<string, unknown>): string {
  return destination.replace(/:(\w+)\*?/g, (_, name: string) => {
    const v = params[name];
    return Array.isArray(v) ? v.join("/") : String(v ?? "");
  });
}

/** The same request at another URL (route parameters added to the query, as Vercel does). */
function retarget(request: Request, url: URL): Request {
  return new Request(url, {
    method: request.method,
    headers: request.headers,
    body: request.body,
    signal: request.signal,
    // @ts-expect-error Node's fetch needs duplex for streamed request bodies
    duplex: "half",
  });
}

/** Starts the local host; resolves once it listens. */
export async function startLocalHost(options: LocalHostOptions): Promise<LocalHost> {
  const log = options.log ?? ((line: string) => console.log(line));
  const apiDir = path.join(options.root, "api");
  const publicDir = path.join(options.root, "public");
  const vercel = JSON.parse(readFileSync(path.join(options.root, "vercel.json"), "utf8")) as VercelConfig;
  const routes = discoverRoutes(apiDir);
  const rewrites = (vercel.rewrites ?? []).map((r) => ({ ...r, matcher: match(r.source) }));
  const headerRules = (vercel.headers ?? []).map((h) => ({ re: pathToRegexp(h.source), headers: h.headers }));
  const modules = new Map<string, Promise<Record<string, unknown>>>();

  const load = (file: string) => {
    let mod = modules.get(file);
    if (!mod) {
      mod = import(pathToFileURL(file).href) as Promise<Record<string, unknown>>;
      modules.set(file, mod);
    }
    return mod;
  };

  const findRoute = (pathname: string) => {
    for (const r of routes) {
      const m = r.matcher(pathname);
      if (m) return { route: r, params: m.params as Record<string, string> };
    }
    return undefined;
  };

  const staticFile = (pathname: string): string | undefined => {
    let rel: string;
    try {
      rel = decodeURIComponent(pathname);
    } catch {
      return undefined;
    }
    const candidates = [rel, `${rel}.html`, path.posix.join(rel, "index.html")];
    for (const c of candidates) {
      const full = path.join(publicDir, c);
      if (!isInside(publicDir, full)) return undefined;
      if (existsSync(full) && statSync(full).isFile()) return full;
    }
    return undefined;
  };

  /** Dispatches a Web request: api route, static file, rewrite, or 404. */
  const dispatch = async (request: Request): Promise<Response> => {
    const url = new URL(request.url);
    let pathname = url.pathname;
    for (let hop = 0; hop < 3; hop++) {
      const found = findRoute(pathname);
      if (found) {
        for (const [k, v] of Object.entries(found.params)) url.searchParams.set(k, v);
        const mod = await load(found.route.file);
        const handler = mod[request.method] as WebHandler | undefined;
        if (!handler) return new Response(null, { status: 405 });
        return handler(url.href === request.url ? request : retarget(request, url));
      }
      if (!pathname.startsWith("/api/") && (request.method === "GET" || request.method === "HEAD")) {
        const file = staticFile(pathname === "/" ? "/index.html" : pathname);
        if (file) {
          const body = request.method === "HEAD" ? null : await readFile(file);
          return new Response(body, {
            headers: { "content-type": mime.contentType(path.extname(file)) || "application/octet-stream" },
          });
        }
      }
      const rewrite = rewrites.find((r) => r.matcher(pathname));
      if (!rewrite) break;
      const m = rewrite.matcher(pathname);
      pathname = substitute(rewrite.destination, m ? (m.params as Record<string, unknown>) : {});
    }
    return routeNotFound(url.pathname, newRequestId());
  };

  const applyHeaderRules = (pathname: string, headers: Headers) => {
    for (const rule of headerRules) {
      if (!rule.re.test(pathname)) continue;
      for (const h of rule.headers) if (!headers.has(h.key)) headers.set(h.key, h.value);
    }
  };

  const server = http.createServer(async (req, res) => {
    // The client may leave before the response is complete: then `request.signal` aborts (the
    // event stream stops) and a streamed body is cancelled. Most requests never read the signal,
    // so its AbortController is made on first read, and nothing is aborted after a full answer.
    let controller: AbortController | undefined;
    let clientGone = false;
    let onGone: (() => void) | undefined;
    res.on("close", () => {
      if (res.writableFinished) return;
      clientGone = true;
      controller?.abort();
      onGone?.();
    });
    try {
      const host = req.headers.host ?? `${options.host}:${options.port}`;
      const url = new URL(req.url ?? "/", `http://${host}`);
      const headers = new Headers();
      for (const [k, v] of Object.entries(req.headers)) {
        if (v === undefined || k.startsWith(":")) continue;
        if (Array.isArray(v)) for (const item of v) headers.append(k, item);
        else headers.set(k, v);
      }
      headers.set(SOCKET_IP_HEADER, req.socket.remoteAddress ?? "unknown");
      const hasBody = req.method !== "GET" && req.method !== "HEAD";
      const request = new Request(url, {
        method: req.method,
        headers,
        body: hasBody ? (Readable.toWeb(req) as ReadableStream<Uint8Array>) : undefined,
        // @ts-expect-error Node's fetch needs duplex for streamed request bodies
        duplex: "half",
      });
      Object.defineProperty(request, "signal", {
        configurable: true,
        get() {
          if (!controller) {
            controller = new AbortController();
            if (clientGone) controller.abort();
          }
          return controller.signal;
        },
      });
      const response = (await options.intercept?.(request)) ?? (await dispatch(request));
      applyHeaderRules(url.pathname, response.headers);
      const outHeaders: Record<string, string | string[]> = {};
      response.headers.forEach((value, key) => {
        if (key === "set-cookie") return;
        outHeaders[key] = value;
      });
      const cookies = response.headers.getSetCookie();
      if (cookies.length) outHeaders["set-cookie"] = cookies;
      if (!req.complete) {
        // Answered before the body was read (e.g. 413): close the connection rather than reuse it.
        outHeaders.connection = "close";
        req.resume();
      }
      if (!response.body || req.method === "HEAD") {
        res.writeHead(response.status, outHeaders);
        res.end();
        return;
      }
      const text = completeBodyText(response);
      if (text !== undefined) {
        // A body built from a string (lib/http/response.ts): written as it is, headers and body
        // in one write, with Content-Length (as Vercel sends buffered responses).
        outHeaders["content-length"] = String(Buffer.byteLength(text));
        res.writeHead(response.status, outHeaders);
        res.end(text);
        return;
      }
      if (!(response.headers.get("content-type") ?? "").startsWith("text/event-stream")) {
        // A whole body: one write with Content-Length (as Vercel sends buffered responses).
        const buffer = Buffer.from(await response.arrayBuffer());
        outHeaders["content-length"] = String(buffer.byteLength);
        res.writeHead(response.status, outHeaders);
        res.end(buffer);
        return;
      }
      res.writeHead(response.status, outHeaders);
      res.flushHeaders();
      const reader = response.body.getReader();
      onGone = () => void reader.cancel().catch(() => {});
      if (clientGone) onGone();
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        if (!res.write(value)) await new Promise((r) => res.once("drain", r));
      }
      res.end();
    } catch (error) {
      if (clientGone) return;
      console.error(`local host error: ${describeError(error)}`);
      if (!res.headersSent) {
        res.writeHead(500, { "content-type": "application/json" });
        res.end(JSON.stringify({ error: { code: "INTERNAL", message: "local host error", details: [] } }));
      } else res.destroy();
    }
  });

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, options.host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  const url = `http://${options.host.includes(":") ? `[${options.host}]` : options.host}:${port}`;

  const invoke = (pathname: string, init: RequestInit = {}) =>
    dispatch(new Request(new URL(pathname, url), init));

  const jobs: Cron[] = [];
  if (options.crons !== false) {
    const secret = getConfig().CRON_SECRET;
    for (const cron of vercel.crons ?? []) {
      jobs.push(
        new Cron(cron.schedule, { protect: true, name: cron.path }, async () => {
          try {
            const res = await invoke(cron.path, {
              headers: secret ? { authorization: `Bearer ${secret}` } : {},
            });
            if (!res.ok) log(`cron ${cron.path}: HTTP ${res.status} ${await res.text()}`);
            else await res.arrayBuffer();
          } catch (error) {
            log(`cron ${cron.path} failed: ${String(error)}`);
          }
        }),
      );
    }
  }

  return {
    url,
    port,
    invoke,
    async close() {
      for (const job of jobs) job.stop();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
        setTimeout(() => server.closeAllConnections(), 2000).unref();
      });
    },
  };
}
