/**
 * The local host behind `npm start`: serves every `api/` file at its Vercel path
 * (dynamic `[name]` segments included), applies `vercel.json` rewrites and headers
 * (path-to-regexp 6, the syntax Vercel uses), serves `public/`, and runs
 * `vercel.json`'s crons on their schedules with croner. Rewrites apply only when no
 * file matches, as on Vercel. Not a framework: a Node `http` server whose requests reach the
 * handlers as Web `Request`s and whose `Response`s are written back by @hono/node-server's
 * request listener (compared with srvx and @whatwg-node/server in docs/performance.md).
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { readFile } from "node:fs/promises";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { getRequestListener, type HttpBindings } from "@hono/node-server";
import { Cron } from "croner";
import mime from "mime-types";
import { match, pathToRegexp } from "path-to-regexp";
import { BoundedCache } from "../lib/bounded-cache.js";
import { getConfig } from "../lib/config.js";
import { SOCKET_IP_HEADER } from "../lib/http/client-ip.js";
import { newRequestId } from "../lib/http/request-id.js";
import { requestUrl } from "../lib/http/request-url.js";
import { routeNotFound } from "../lib/http/response.js";
import { describeError } from "../lib/log-error.js";

type WebHandler = (request: Request) => Response | Promise<Response>;

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
  /**
   * Let @hono/node-server replace the process's global `Request` and `Response` by its
   * lightweight subclasses (default true), so a handler's `new Response(text)` is written without
   * building a body stream. Both stay `instanceof` the originals; a `Response` from `fetch()` is
   * still accepted as a handler's answer.
   */
  overrideGlobalObjects?: boolean;
}

/** A running local host. */
export interface LocalHost {
  url: string;
  port: number;
  /** Calls one route in-process, as a cron would. */
  invoke(pathname: string, init?: RequestInit): Promise<Response>;
  close(): Promise<void>;
}

/** Paths whose api/ route (or the absence of one) the local host remembers before forgetting them all. */
const ROUTE_CACHE = 1000;

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

/** The path of a request target (`/a/b?c` → `/a/b`). */
function pathOf(target: string): string {
  const q = target.indexOf("?");
  return q === -1 ? target : target.slice(0, q);
}

/**
 * Passes the socket's address to handlers in `SOCKET_IP_HEADER`, replacing any value the client
 * sent under that name (lib/http/client-ip.ts trusts it only from the local host). Edits both
 * views of the request head that Node keeps (`rawHeaders` and the parsed `headers`), before any
 * `Request` is built over them.
 */
function withSocketIp(req: http.IncomingMessage): void {
  const ip = req.socket.remoteAddress ?? "unknown";
  const raw = req.rawHeaders;
  for (let i = raw.length - 2; i >= 0; i -= 2) {
    if (raw[i]!.length === SOCKET_IP_HEADER.length && raw[i]!.toLowerCase() === SOCKET_IP_HEADER)
      raw.splice(i, 2);
  }
  raw.push(SOCKET_IP_HEADER, ip);
  req.headers[SOCKET_IP_HEADER] = ip;
}

/** A `vercel.json` header rule's header: the name as written, lowercased, and the value. */
type RuleHeader = readonly [name: string, lower: string, value: string];

/**
 * The Node response of the local host: sends the `vercel.json` headers of the request's path
 * (`ruleHeaders`, set once the handler has answered) with the head, unless the response names
 * them itself (any case), as Vercel does. They are merged into the header record that
 * @hono/node-server's writer hands to `writeHead` rather than set beforehand with `setHeader`,
 * which would make Node take its slower path and re-set every header of the record one by one.
 */
class LocalHostResponse extends http.ServerResponse {
  ruleHeaders: readonly RuleHeader[] | undefined = undefined;

  override writeHead(statusCode: number, reason?: unknown, obj?: unknown): this {
    const rules = this.ruleHeaders;
    if (!rules || rules.length === 0) {
      return super.writeHead(statusCode, reason as string, obj as http.OutgoingHttpHeaders);
    }
    this.ruleHeaders = undefined;
    let headers = typeof reason === "string" ? obj : (obj ?? reason);
    if (
      headers === undefined ||
      headers === null ||
      (typeof headers === "object" && !Array.isArray(headers))
    ) {
      headers = withRuleHeaders(rules, headers as Record<string, unknown> | null | undefined);
    } else {
      // A raw [name, value, …] list: set beforehand; the list's own names replace them.
      for (const [name, lower, value] of rules) if (!this.hasHeader(lower)) this.setHeader(name, value);
    }
    return typeof reason === "string"
      ? super.writeHead(statusCode, reason, headers as http.OutgoingHttpHeaders)
      : super.writeHead(statusCode, headers as http.OutgoingHttpHeaders);
  }
}

/** `headers` (a plain record, or none) with each of `rules` it does not name in any case, rules first. */
function withRuleHeaders(
  rules: readonly RuleHeader[],
  headers: Record<string, unknown> | null | undefined,
): Record<string, unknown> {
  const merged: Record<string, unknown> = {};
  for (const [name, lower, value] of rules) {
    let named = false;
    if (headers) {
      for (const key in headers) {
        if (key.length === lower.length && (key === lower || key.toLowerCase() === lower)) {
          named = true;
          break;
        }
      }
    }
    if (!named) merged[name] = value;
  }
  return headers ? Object.assign(merged, headers) : merged;
}

/** The same request at another URL (route parameters added to the query, as Vercel does). */
function retarget(request: Request, url: URL): Request {
  const hasBody = request.method !== "GET" && request.method !== "HEAD";
  return new Request(url, {
    method: request.method,
    headers: request.headers,
    body: hasBody ? request.body : undefined,
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
  /** The modules already loaded, so that a request to a loaded route waits for nothing. */
  const loaded = new Map<string, Record<string, unknown>>();

  const load = (file: string) => {
    let mod = modules.get(file);
    if (!mod) {
      mod = import(pathToFileURL(file).href) as Promise<Record<string, unknown>>;
      modules.set(file, mod);
      mod.then(
        (m) => loaded.set(file, m),
        () => {},
      );
    }
    return mod;
  };

  /** The first route matching `pathname`; a path with no parameters is remembered (at most `ROUTE_CACHE`). */
  const staticHits = new BoundedCache<string, ApiRoute | null>(ROUTE_CACHE);
  const findRoute = (pathname: string) => {
    const hit = staticHits.get(pathname);
    if (hit !== undefined) return hit ? { route: hit, params: {} } : undefined;
    for (const r of routes) {
      const m = r.matcher(pathname);
      if (m) {
        if (r.dynamic === 0) staticHits.set(pathname, r);
        return { route: r, params: m.params as Record<string, string> };
      }
    }
    if (pathname.startsWith("/api/")) staticHits.set(pathname, null);
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

  /** Calls the route `found` of `request` (module `mod`): its method's handler, or 405. */
  const callRoute = (
    request: Request,
    url: URL,
    found: { params: Record<string, string> },
    mod: Record<string, unknown>,
  ): Response | Promise<Response> => {
    let target = url;
    for (const k in found.params) {
      // The request's own parsed URL is shared (requestUrl): add the parameters to a copy.
      if (target === url) target = new URL(url);
      target.searchParams.set(k, found.params[k]!);
    }
    const handler = mod[request.method] as WebHandler | undefined;
    if (!handler) return new Response(null, { status: 405 });
    return handler(target.href === request.url ? request : retarget(request, target));
  };

  /**
   * `dispatch`, without a promise of its own when the request's path is an api/ route whose module
   * is loaded: the handler's answer as it gives it (a `Response` when it had nothing to wait for).
   */
  const dispatchNow = (request: Request): Response | Promise<Response> => {
    const url = requestUrl(request);
    const found = findRoute(url.pathname);
    const mod = found && loaded.get(found.route.file);
    return found && mod ? callRoute(request, url, found, mod) : dispatch(request);
  };

  /** Dispatches a Web request: api route, static file, rewrite, or 404. */
  const dispatch = async (request: Request): Promise<Response> => {
    const url = requestUrl(request);
    let pathname = url.pathname;
    for (let hop = 0; hop < 3; hop++) {
      const found = findRoute(pathname);
      if (found) {
        const mod = loaded.get(found.route.file) ?? (await load(found.route.file));
        return callRoute(request, url, found, mod);
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

  /**
   * The `vercel.json` headers of `pathname`, the first rule naming a header winning; remembered
   * per path (at most `ROUTE_CACHE` paths, then forgotten all at once).
   */
  const ruleHeaders = new BoundedCache<string, RuleHeader[]>(ROUTE_CACHE);
  const headersOfRules = (pathname: string): RuleHeader[] => {
    let found = ruleHeaders.get(pathname);
    if (!found) {
      const seen = new Set<string>();
      found = [];
      for (const rule of headerRules) {
        if (!rule.re.test(pathname)) continue;
        for (const h of rule.headers) {
          const name = h.key.toLowerCase();
          if (seen.has(name)) continue;
          seen.add(name);
          found.push([h.key, name, h.value]);
        }
      }
      ruleHeaders.set(pathname, found);
    }
    return found;
  };

  // Node ↔ Web conversion by @hono/node-server's request listener: a lazy `Request` over the
  // IncomingMessage (headers, URL and body read only when a handler asks; `request.signal` aborts
  // when the client leaves before the answer) and a response writer that sends a body built from a
  // string or bytes in one write with Content-Length, and streams a `ReadableStream` body chunk by
  // chunk (cancelled when the client leaves). Compared with srvx and @whatwg-node/server in
  // docs/performance.md ("Local host adapter").
  /** `response`, the answer of `incoming`, once the `vercel.json` headers of its path are set to go with it. */
  const sent = (bindings: HttpBindings, response: Response): Response => {
    const { incoming, outgoing } = bindings;
    const pathname = incoming.url ? pathOf(incoming.url) : "/";
    // Sent by the Node response (`LocalHostResponse`), not set on `response.headers`: the
    // response's own headers win (as on Vercel), and a handler's lightweight response never has
    // to build a `Headers` object (docs/performance.md).
    (outgoing as LocalHostResponse).ruleHeaders = headersOfRules(pathname);
    if (!incoming.complete && incoming.method !== "GET" && incoming.method !== "HEAD") {
      // Answered before the body was read (e.g. 413): close the connection rather than reuse it.
      outgoing.setHeader("connection", "close");
    }
    return response;
  };

  const intercept = options.intercept;
  const listener = getRequestListener(
    // A `Response` returned at once (not a promise) is written by @hono/node-server without any
    // promise or close listener of its own (docs/performance.md): the api/ routes' usual case.
    (request, env) => {
      const bindings = env as HttpBindings;
      const answer = intercept
        ? intercept(request).then((intercepted) => intercepted ?? dispatch(request))
        : dispatchNow(request);
      return answer instanceof Promise
        ? answer.then((response) => sent(bindings, response))
        : sent(bindings, answer);
    },
    {
      hostname: `${options.host}:${options.port}`,
      overrideGlobalObjects: options.overrideGlobalObjects ?? true,
      errorHandler: (error) => {
        console.error(`local host error: ${describeError(error)}`);
        return new Response(
          JSON.stringify({ error: { code: "INTERNAL", message: "local host error", details: [] } }),
          { status: 500, headers: { "content-type": "application/json" } },
        );
      },
    },
  );

  const server = http.createServer({ ServerResponse: LocalHostResponse }, (req, res) => {
    withSocketIp(req);
    void listener(req, res);
  });
  // An idle keep-alive socket is closed after 30 s rather than Node's 5 s: a client (undici) that
  // reuses a socket the server is closing at that moment gets "other side closed", and on a busy
  // machine, where timers run late, that race hit MCP clients between two requests. Below
  // headersTimeout (60 s), as Node requires.
  server.keepAliveTimeout = 30_000;
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
