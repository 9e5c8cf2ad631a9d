/** Calls a Web handler directly, as Vercel would, and reads JSON. */
export type WebHandler = (request: Request) => Response | Promise<Response>;

export const BASE = "http://localhost:3000";

/** Sends a request to `handler` and returns the response and its parsed JSON body. */
export async function call(
  handler: WebHandler,
  path: string,
  init: RequestInit & { json?: unknown } = {},
): Promise<{ res: Response; body: any }> {
  const { json, ...rest } = init;
  const headers = new Headers(rest.headers);
  if (json !== undefined && !headers.has("content-type")) headers.set("content-type", "application/json");
  const res = await handler(
    new Request(new URL(path, BASE), {
      ...rest,
      headers,
      body: json === undefined ? rest.body : JSON.stringify(json),
    }),
  );
  const text = await res.text();
  let body: any = text;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    // not JSON
  }
  return { res, body };
}

/** Asserts the contract.md error envelope and returns its `error` member. */
export function expectEnvelope(body: any, res: Response, status: number, code: string) {
  if (res.status !== status || body?.error?.code !== code) {
    throw new Error(`expected ${status} ${code}, got ${res.status} ${JSON.stringify(body)}`);
  }
  if (typeof body.request_id !== "string" || !body.request_id.startsWith("req_"))
    throw new Error("no request_id");
  if (res.headers.get("x-request-id") !== body.request_id)
    throw new Error("X-Request-Id differs from request_id");
  if (!Array.isArray(body.error.details) || typeof body.error.message !== "string")
    throw new Error("bad envelope");
  return body.error;
}
