import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { checkOutboundUrl, type LookupFn } from "../../lib/net/outbound-url.js";
import { guardedLookup, OutboundBlockedError, safeFetch } from "../../lib/net/safe-fetch.js";

let server: Server;
let port: number;
let received: string[] = [];
/** TCP connections accepted: a refusal at lookup time never opens one. */
let connections = 0;

function handle(req: IncomingMessage, res: ServerResponse): void {
  received.push(`${req.method} ${req.url}`);
  if (req.url === "/redirect") {
    res.writeHead(302, { location: "http://127.0.0.1:1/elsewhere" }).end();
  } else if (req.url === "/hang") {
    // never answers
  } else {
    let body = "";
    req.on("data", (chunk: Buffer) => {
      body += chunk.toString();
    });
    req.on("end", () => res.writeHead(200, { "content-type": "text/plain" }).end(`ok ${body}`));
  }
}

beforeAll(async () => {
  server = createServer(handle);
  server.on("connection", () => {
    connections += 1;
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as AddressInfo).port;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

beforeEach(() => {
  received = [];
  connections = 0;
});

async function blocked(promise: Promise<unknown>): Promise<OutboundBlockedError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(OutboundBlockedError);
  return error as OutboundBlockedError;
}

describe("safeFetch", () => {
  it("refuses a loopback server by default; the server receives nothing", async () => {
    await blocked(safeFetch(`http://127.0.0.1:${port}/hook`, { allowPrivate: false }));
    const e = await blocked(
      safeFetch(`http://127.0.0.1:${port}/hook`, { allowPrivate: false, requireHttps: false }),
    );
    expect(e.reason).toBe("loopback");
    expect(e.address).toBe("127.0.0.1");
    expect(received).toEqual([]);
    expect(connections).toBe(0);
  });

  it("refuses a name resolving to loopback at connect time; the server receives nothing", async () => {
    const toLoopback: LookupFn = async () => [{ address: "127.0.0.1", family: 4 }];
    const e = await blocked(
      safeFetch(`http://hooks.test:${port}/hook`, {
        allowPrivate: false,
        requireHttps: false,
        lookup: toLoopback,
      }),
    );
    expect(e.hostname).toBe("hooks.test");
    expect(e.address).toBe("127.0.0.1");
    expect(received).toEqual([]);
    expect(connections).toBe(0);
  });

  it("refuses a name when any of its addresses is forbidden", async () => {
    const mixed: LookupFn = async () => [
      { address: "93.184.216.34", family: 4 },
      { address: "::ffff:169.254.169.254", family: 6 },
    ];
    const e = await blocked(safeFetch("https://mixed.test/", { allowPrivate: false, lookup: mixed }));
    expect(e.reason).toBe("ipv4Mapped:linkLocal");
  });

  it("allows loopback when allowPrivate, sending method, headers and body", async () => {
    const res = await safeFetch(`http://127.0.0.1:${port}/hook`, {
      allowPrivate: true,
      method: "POST",
      headers: { "content-type": "application/json" },
      body: '{"a":1}',
    });
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('ok {"a":1}');
    expect(received).toEqual(["POST /hook"]);
  });

  it("allows a name resolving to loopback when allowPrivate", async () => {
    const toLoopback: LookupFn = async () => [{ address: "127.0.0.1", family: 4 }];
    const res = await safeFetch(`http://dev.test:${port}/named`, { allowPrivate: true, lookup: toLoopback });
    expect(res.status).toBe(200);
    await res.text();
    expect(received).toEqual(["GET /named"]);
  });

  it("still refuses the metadata address when allowPrivate", async () => {
    await blocked(safeFetch("http://169.254.169.254/latest/meta-data/", { allowPrivate: true }));
    await blocked(safeFetch("http://[fd00:ec2::254]/", { allowPrivate: true }));
  });

  it("returns a redirect as is and does not follow it", async () => {
    const res = await safeFetch(`http://127.0.0.1:${port}/redirect`, {
      allowPrivate: true,
      redirect: "follow",
    });
    expect(res.status).toBe(302);
    expect(res.headers.get("location")).toBe("http://127.0.0.1:1/elsewhere");
    expect(received).toEqual(["GET /redirect"]);
  });

  it("times out a hanging server within timeoutMs", async () => {
    // The exchange is bounded by timeoutMs (not the 10 s default): checked on the abort signal
    // itself rather than with a stopwatch, which a loaded machine would fool. 2 s leaves the
    // request ample time to reach the server before it is given up.
    const timeout = vi.spyOn(AbortSignal, "timeout");
    try {
      const error = await safeFetch(`http://127.0.0.1:${port}/hang`, {
        allowPrivate: true,
        timeoutMs: 2000,
      }).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect((error as Error).name).toBe("TimeoutError");
      expect(timeout.mock.calls).toEqual([[2000]]);
    } finally {
      timeout.mockRestore();
    }
    expect(received).toEqual(["GET /hang"]);
  });

  it("honours the caller's own AbortSignal too", async () => {
    const controller = new AbortController();
    const pending = safeFetch(`http://127.0.0.1:${port}/hang`, {
      allowPrivate: true,
      signal: controller.signal,
    });
    setTimeout(() => controller.abort(), 50);
    await expect(pending).rejects.toMatchObject({ name: "AbortError" });
  });

  it("refuses non-http(s) schemes", async () => {
    await blocked(safeFetch("data:text/plain,hi", { allowPrivate: true }));
    await blocked(safeFetch("file:///etc/passwd", { allowPrivate: true }));
  });

  it("defeats DNS rebinding: public at check time, loopback at connect time", async () => {
    let calls = 0;
    const rebinding: LookupFn = async () => {
      calls += 1;
      return calls === 1 ? [{ address: "93.184.216.34", family: 4 }] : [{ address: "127.0.0.1", family: 4 }];
    };
    const url = await checkOutboundUrl(`https://rebind.test:${port}/hook`, "callback_url", {
      allowPrivate: false,
      lookup: rebinding,
    });
    const e = await blocked(safeFetch(url, { allowPrivate: false, lookup: rebinding }));
    expect(e.reason).toBe("loopback");
    expect(calls).toBe(2);
    expect(received).toEqual([]);
    expect(connections).toBe(0);
  });
});

describe("guardedLookup", () => {
  const lookup: LookupFn = async () => [
    { address: "2606:4700:4700::1111", family: 6 },
    { address: "1.1.1.1", family: 4 },
  ];

  function run(
    fn: ReturnType<typeof guardedLookup>,
    options: Parameters<ReturnType<typeof guardedLookup>>[1],
  ): Promise<[Error | null, unknown, number | undefined]> {
    return new Promise((resolve) =>
      fn("h.test", options, (err, address, family) => resolve([err, address, family])),
    );
  }

  it("passes public addresses through in both callback shapes, honouring family", async () => {
    const fn = guardedLookup(lookup, false);
    expect(await run(fn, { all: true })).toEqual([null, await lookup("h.test"), undefined]);
    expect(await run(fn, {})).toEqual([null, "2606:4700:4700::1111", 6]);
    expect(await run(fn, { family: 4 })).toEqual([null, "1.1.1.1", 4]);
  });

  it("fails with OutboundBlockedError for a forbidden address, and ENOTFOUND for none", async () => {
    const [err] = await run(
      guardedLookup(async () => [{ address: "10.0.0.1", family: 4 }], false),
      { all: true },
    );
    expect(err).toBeInstanceOf(OutboundBlockedError);
    const [none] = await run(
      guardedLookup(async () => [], false),
      {},
    );
    expect((none as NodeJS.ErrnoException).code).toBe("ENOTFOUND");
  });
});
