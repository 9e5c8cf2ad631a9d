/**
 * Runs a Node `(req, res)` handler (oidc-provider is a Koa application) on a Web `Request` and gives
 * back a Web `Response`, in memory: no socket, no server. The body is read whole first (the
 * authorization endpoints take small form bodies; MAX_BODY_BYTES bounds them), headers are copied
 * both ways, and `Set-Cookie` stays a list.
 */
import { IncomingMessage, ServerResponse } from "node:http";
import { Socket } from "node:net";

/** A Node request handler. */
export type NodeHandler = (req: IncomingMessage, res: ServerResponse) => unknown;

/** A Node request over `request` (headers, method, path and query; `body` pushed whole). */
export function nodeRequestOf(request: Request, body?: Buffer, path?: string): IncomingMessage {
  const url = new URL(request.url);
  const req = new IncomingMessage(new Socket());
  req.method = request.method;
  req.url = path ?? `${url.pathname}${url.search}`;
  const headers: Record<string, string> = {};
  const raw: string[] = [];
  request.headers.forEach((value, name) => {
    headers[name] = value;
    raw.push(name, value);
  });
  headers.host ??= url.host;
  // The provider trusts these (provider.proxy = true): the scheme and host the client used.
  headers["x-forwarded-proto"] = url.protocol.replace(":", "");
  headers["x-forwarded-host"] = headers.host;
  if (body) {
    // The body pushed is whole and may differ from the one sent (api/oauth.ts completes a registration).
    headers["content-length"] = String(body.length);
    delete headers["transfer-encoding"];
  }
  req.headers = headers;
  req.rawHeaders = raw;
  if (body && body.length > 0) req.push(body);
  req.push(null);
  return req;
}

/** A response collector: `done` resolves with the Web `Response` once the handler ends it. */
export function collectingResponse(req: IncomingMessage): { res: ServerResponse; done: Promise<Response> } {
  const res = new ServerResponse(req);
  const chunks: Buffer[] = [];
  let finish!: (response: Response) => void;
  const done = new Promise<Response>((resolve) => {
    finish = resolve;
  });
  const toBuffer = (chunk: unknown, encoding?: unknown) =>
    Buffer.isBuffer(chunk)
      ? chunk
      : typeof chunk === "string"
        ? Buffer.from(chunk, typeof encoding === "string" ? (encoding as BufferEncoding) : "utf8")
        : Buffer.from(chunk as Uint8Array);
  res.write = ((chunk: unknown, encoding?: unknown, cb?: unknown) => {
    if (chunk !== undefined && chunk !== null) chunks.push(toBuffer(chunk, encoding));
    const callback = typeof encoding === "function" ? encoding : cb;
    if (typeof callback === "function") (callback as () => void)();
    return true;
  }) as ServerResponse["write"];
  res.end = ((chunk?: unknown, encoding?: unknown, cb?: unknown) => {
    if (chunk !== undefined && chunk !== null && typeof chunk !== "function")
      chunks.push(toBuffer(chunk, encoding));
    const headers = new Headers();
    for (const [name, value] of Object.entries(res.getHeaders())) {
      if (value === undefined) continue;
      if (Array.isArray(value)) for (const v of value) headers.append(name, v);
      else headers.set(name, String(value));
    }
    const status = res.statusCode;
    const body = status === 204 || status === 304 || req.method === "HEAD" ? null : Buffer.concat(chunks);
    finish(new Response(body, { status, headers }));
    const callback = [chunk, encoding, cb].find((c) => typeof c === "function");
    if (typeof callback === "function") (callback as () => void)();
    return res;
  }) as ServerResponse["end"];
  return { res, done };
}

/**
 * Serves `request` with the Node `handler`; `path` replaces the request's path and query when given.
 * @param read the request's body when the caller already read it (the body stream is then spent)
 */
export async function callNodeHandler(
  handler: NodeHandler,
  request: Request,
  path?: string,
  read?: Buffer,
): Promise<Response> {
  const body =
    read ??
    (request.method === "GET" || request.method === "HEAD"
      ? undefined
      : Buffer.from(await request.arrayBuffer()));
  const req = nodeRequestOf(request, body, path);
  const { res, done } = collectingResponse(req);
  await handler(req, res);
  return done;
}
