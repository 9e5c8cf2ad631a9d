/**
 * The rules HTTP endpoints and MCP tools share through lib (issue 19, "no logic in adapters"):
 * the catalog lookup, the polling/Retry-After rule, the out-of-band payment mapping, and the
 * key-creation limit subject of `register_api_key`.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { findServices } from "../../lib/catalog/find-services.js";
import { resetConfig } from "../../lib/config.js";
import { DomainError } from "../../lib/errors.js";
import { TOOLS } from "../../lib/mcp/tools.js";
import { resetLimiters } from "../../lib/ratelimit/limiter.js";
import { outOfBandPayment } from "../../lib/tasks/state/record-payment.js";
import { nextPollSeconds, retryAfterSeconds } from "../../lib/tasks/task-advice.js";
import { useTestDatabase } from "../helpers/db.js";

useTestDatabase();

describe("findServices", () => {
  it("lists all five, or the one named, with or without contracts", () => {
    const all = findServices({ includeContract: false });
    expect(all.count).toBe(5);
    expect(all.services[0]).not.toHaveProperty("contract");
    const one = findServices({ id: "SVC-03", includeContract: true });
    expect(one.count).toBe(1);
    expect(one.services[0]?.id).toBe("SVC-03");
    expect(one.services[0]).toHaveProperty("contract");
  });

  it("raises NOT_FOUND on the id field for an unknown id", () => {
    const attempt = () => findServices({ id: "SVC-06", includeContract: false });
    expect(attempt).toThrow(DomainError);
    try {
      attempt();
    } catch (error) {
      expect((error as DomainError).code).toBe("NOT_FOUND");
      expect((error as DomainError).field).toBe("id");
      expect((error as DomainError).message).toMatch(/SVC-01 to SVC-05/);
    }
  });
});

describe("polling advice", () => {
  it("waits per status, 1 s for a sandbox task, and no Retry-After once terminal", () => {
    expect(nextPollSeconds({ status: "received", sandbox: false })).toBe(300);
    expect(retryAfterSeconds({ status: "received", sandbox: false })).toBe(300);
    expect(retryAfterSeconds({ status: "accepted_pending_payment", sandbox: false })).toBe(60);
    expect(retryAfterSeconds({ status: "dispatched", sandbox: true })).toBe(1);
    expect(nextPollSeconds({ status: "completed", sandbox: true })).toBe(0);
    expect(retryAfterSeconds({ status: "completed", sandbox: true })).toBeNull();
    expect(retryAfterSeconds({ status: "cancelled", sandbox: false })).toBeNull();
  });
});

describe("outOfBandPayment", () => {
  it("is usdc with a transaction hash, manual without, and keeps network and note", () => {
    const hash = `0x${"ab".repeat(32)}`;
    expect(outOfBandPayment({ tx_hash: hash, network: "base", note: "late" })).toEqual({
      method: "usdc",
      network: "base",
      txHash: hash,
      note: "late",
    });
    expect(outOfBandPayment({ note: "e-transfer" })).toMatchObject({ method: "manual", note: "e-transfer" });
  });
});

describe("MCP register_api_key limit", () => {
  const saved = process.env.KEY_CREATIONS_PER_IP_PER_HOUR;
  beforeEach(() => {
    process.env.KEY_CREATIONS_PER_IP_PER_HOUR = "3";
    resetConfig();
    // A fixed clock 10 s into an hour: the four registrations fall in one window whatever the time.
    resetLimiters(() => Date.UTC(2026, 0, 5, 0, 0, 10));
  });
  afterEach(() => {
    if (saved === undefined) delete process.env.KEY_CREATIONS_PER_IP_PER_HOUR;
    else process.env.KEY_CREATIONS_PER_IP_PER_HOUR = saved;
    resetConfig();
    resetLimiters();
  });

  it("counts an IPv6 client for its whole /64, like POST /api/api-keys", async () => {
    const tool = TOOLS.find((t) => t.name === "register_api_key")!;
    const register = (ip: string) =>
      tool.run(
        { name: "agent", contact: "agent@example.com" },
        { headerCaller: null, headerKeyInvalid: false, ip, requestId: "req_test" },
      );
    for (const host of ["1", "2", "3"]) {
      const created = await register(`2001:db8:1:2::${host}`);
      expect(created.isError).toBeFalsy();
    }
    // The same error as the HTTP wrapper gives: its Retry-After becomes the tool's retry_after_seconds.
    await expect(register("2001:db8:1:2::4")).rejects.toMatchObject({
      code: "RATE_LIMITED",
      retryAfterSeconds: 3590, // to the end of that hour
    });
    expect((await register("2001:db8:1:3::1")).isError).toBeFalsy();
  });
});
