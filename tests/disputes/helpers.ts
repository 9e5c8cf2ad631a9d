/** Helpers of the dispute tests: a completed task, and the dispute endpoints through their real handlers. */
import { expect } from "vitest";
import { POST as resolvePost } from "../../api/dispute-resolve.js";
import { GET as disputesGet } from "../../api/disputes.js";
import { POST as disputePost } from "../../api/task-dispute.js";
import { keyHeaders } from "../helpers/keys.js";
import { call } from "../helpers/request.js";
import {
  completeTask,
  pngProof,
  recordPayment,
  reviewTask,
  submitTask,
  validTask,
} from "../helpers/tasks.js";

/** POST /api/task-dispute with `headers`. */
export function openDispute(body: Record<string, unknown>, headers: Record<string, string> = {}) {
  return call(disputePost, "/api/task-dispute", { method: "POST", headers, json: body });
}

/** POST /api/dispute-resolve as `key`. */
export function resolve(key: string, body: Record<string, unknown>, headers: Record<string, string> = {}) {
  return call(resolvePost, "/api/dispute-resolve", {
    method: "POST",
    headers: { "x-api-key": key, ...headers },
    json: body,
  });
}

/** GET /api/disputes as `key`. */
export function listDisputes(key: string, query = "") {
  return call(disputesGet, `/api/disputes${query}`, { headers: { "x-api-key": key } });
}

/**
 * A task of `owner` (key) approved at `price`, paid (USDC with a transaction, unless the key bills
 * a funded prepaid account, which the approval charges), dispatched and completed with a proof.
 */
export async function completedTask(admin: string, owner: string, price = 200, headers = keyHeaders(owner)) {
  const { body: created } = await submitTask(validTask, headers);
  const id = created.task_id as string;
  const reviewed = await reviewTask(admin, { task_id: id, action: "approve", price_cad: price });
  if (reviewed.body.status !== "paid") {
    const paid = await recordPayment(admin, {
      task_id: id,
      tx_hash: `0x${"34".repeat(32)}`,
      network: "base",
    });
    expect(paid.body.status).toBe("paid");
  }
  await completeTask(admin, { task_id: id, action: "dispatch" });
  const done = await completeTask(admin, {
    task_id: id,
    action: "complete",
    no_visit_reason: "Test: completed without a site visit",
    proof_files: [pngProof()],
  });
  expect(done.body.status).toBe("completed");
  return id;
}
