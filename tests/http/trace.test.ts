/**
 * W3C Trace Context `traceparent` (lib/http/trace.ts): valid values are kept, malformed ones
 * ignored; one noted from a request body wins over the header; an unexpected error's log line names
 * it beside the request id; and the activity row of a request keeps it beside the request id (an
 * HTTP header on a plain endpoint).
 */
import { desc } from "drizzle-orm";
import { describe, expect, it, vi } from "vitest";
import { GET as services } from "../../api/services.js";
import { flushActivity } from "../../lib/activity/record-activity.js";
import { getDb } from "../../lib/db/client.js";
import { activityLog } from "../../lib/db/schema/index.js";
import { toErrorResponse } from "../../lib/http/error-response.js";
import { noteTraceparent, parseTraceparent, traceparentOf } from "../../lib/http/trace.js";
import { useTestDatabase } from "../helpers/db.js";
import { call } from "../helpers/request.js";

useTestDatabase();

const VALID = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

describe("parseTraceparent", () => {
  it.each([
    [VALID, VALID],
    [
      "01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-extra",
      "01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-extra",
    ],
    ["ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", null],
    ["00-00000000000000000000000000000000-00f067aa0ba902b7-01", null],
    ["00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01", null],
    ["00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01", null],
    [`${VALID}-more`, null],
    ["not a trace", null],
    [42, null],
  ])("%s → %s", (input, expected) => {
    expect(parseTraceparent(input)).toBe(expected);
  });

  it("a value noted from the body wins over the header; a malformed one is not noted", () => {
    const other = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";
    const request = new Request("http://127.0.0.1/x", { headers: { traceparent: VALID } });
    expect(traceparentOf(request)).toBe(VALID);
    noteTraceparent(request, "garbage");
    expect(traceparentOf(request)).toBe(VALID);
    noteTraceparent(request, other);
    expect(traceparentOf(request)).toBe(other);
  });
});

describe("the error log", () => {
  it("tags an unexpected error with the request id and the request's traceparent", () => {
    const spy = vi.spyOn(console, "error").mockImplementation(() => {});
    try {
      const request = new Request("http://127.0.0.1/x", { headers: { traceparent: VALID } });
      const res = toErrorResponse(new Error("boom"), "req_trace", request);
      expect(res.status).toBe(500);
      toErrorResponse(new Error("boom"), "req_plain", new Request("http://127.0.0.1/x"));
      const lines = spy.mock.calls.map((c) => String(c[0]));
      expect(lines).toHaveLength(2);
      expect(lines[0]).toMatch(
        new RegExp(`^\\[req_trace traceparent=${VALID}\\] unhandled error: Error: boom`),
      );
      expect(lines[1]).toMatch(/^\[req_plain\] unhandled error: Error: boom/);
    } finally {
      spy.mockRestore();
    }
  });
});

describe("the activity row", () => {
  it("keeps the traceparent header beside the request id; a malformed one is null", async () => {
    const traced = await call(services, "/api/services", { headers: { traceparent: VALID } });
    const plain = await call(services, "/api/services", { headers: { traceparent: "00-zz" } });
    await flushActivity();
    const rows = await (await getDb()).select().from(activityLog).orderBy(desc(activityLog.id)).limit(2);
    const byId = new Map(rows.map((r) => [r.requestId, r.traceparent]));
    expect(byId.get(traced.res.headers.get("x-request-id"))).toBe(VALID);
    expect(byId.get(plain.res.headers.get("x-request-id"))).toBeNull();
  });
});
