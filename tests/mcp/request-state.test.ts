/**
 * The sealed `requestState` of multi-round-trip results (lib/mcp/modern/request-state.ts): it
 * verifies back to its claims; an expired one, one whose signature was altered, and a purpose token
 * made for something else are refused; a valid one issued to another caller or for another call is
 * refused by the handler's check; its life ends with the payment window when that is sooner.
 */
import { describe, expect, it } from "vitest";
import { signPurposeToken } from "../../lib/auth/jwt.js";
import {
  callerTag,
  checkRequestState,
  mintRequestState,
  REQUEST_STATE_SECONDS,
  requestDigest,
  verifyRequestState,
} from "../../lib/mcp/modern/request-state.js";

const claims = {
  tool: "pay_task",
  task_id: "TASK-1",
  who: callerTag("key_1", undefined),
  digest: requestDigest("pay_task", { task_id: "TASK-1", api_key: "svc_secret" }),
};

describe("request state", () => {
  it("verifies back to its claims; expired, altered or foreign tokens are refused", async () => {
    const state = await mintRequestState(claims);
    expect(await verifyRequestState(state)).toMatchObject(claims);
    const old = await mintRequestState(
      claims,
      null,
      new Date(Date.now() - (REQUEST_STATE_SECONDS + 60) * 1000),
    );
    await expect(verifyRequestState(old)).rejects.toThrow();
    await expect(verifyRequestState(`${state.slice(0, -3)}abc`)).rejects.toThrow();
    const payToken = await signPurposeToken("task-pay", { ...claims });
    await expect(verifyRequestState(payToken)).rejects.toThrow();
  });

  it("ends with the payment window when that is sooner", async () => {
    const now = new Date();
    const windowEnd = new Date(now.getTime() + 60_000);
    const state = await mintRequestState(claims, windowEnd, now);
    const payload = JSON.parse(Buffer.from(state.split(".")[1]!, "base64url").toString());
    expect(payload.exp).toBe(Math.floor(windowEnd.getTime() / 1000));
  });

  it("the digest ignores credentials; the check refuses another caller or another call", () => {
    expect(requestDigest("pay_task", { task_id: "TASK-1" })).toBe(claims.digest);
    expect(() =>
      checkRequestState(claims, { tool: "pay_task", digest: claims.digest, who: claims.who }),
    ).not.toThrow();
    expect(() =>
      checkRequestState(claims, {
        tool: "pay_task",
        digest: claims.digest,
        who: callerTag("key_2", undefined),
      }),
    ).toThrow(/another caller/);
    expect(() =>
      checkRequestState(claims, {
        tool: "pay_task",
        digest: requestDigest("pay_task", { task_id: "TASK-2" }),
        who: claims.who,
      }),
    ).toThrow(/another call/);
    expect(callerTag(null, "tok")).not.toBe(callerTag(null, "tok2"));
  });
});
