/** Helpers for task tests: submit, review, pay, complete through the real handlers. */
import { and, eq } from "drizzle-orm";
import { DELETE as cancel, GET as status, POST as submit } from "../../api/submit-task.js";
import { POST as complete } from "../../api/task-complete.js";
import { POST as pay } from "../../api/task-payment.js";
import { POST as refund } from "../../api/task-refund.js";
import { POST as review } from "../../api/task-review.js";
import { getDb } from "../../lib/db/client.js";
import { emails } from "../../lib/db/schema/index.js";
import { sampleProofPng } from "../../lib/tasks/sample-proof.js";
import { call } from "./request.js";

export const validTask = {
  service_type: "SVC-01",
  location_address: "1000 Rue Sherbrooke O, Montréal, QC H3A 3G4",
  task_description: "Photograph the storefront and the posted opening hours.",
  requester_contact: "agent@example.com",
};

export function submitTask(body: Record<string, unknown> = validTask, headers: Record<string, string> = {}) {
  return call(submit, "/api/submit-task", { method: "POST", headers, json: body });
}

export function getStatus(taskId: string, headers: Record<string, string> = {}) {
  return call(status, `/api/submit-task?task_id=${encodeURIComponent(taskId)}`, { headers });
}

export function reviewTask(admin: string, body: Record<string, unknown>) {
  return call(review, "/api/task-review", { method: "POST", headers: { "x-api-key": admin }, json: body });
}

export function recordPayment(admin: string, body: Record<string, unknown>) {
  return call(pay, "/api/task-payment", { method: "POST", headers: { "x-api-key": admin }, json: body });
}

export function completeTask(admin: string, body: Record<string, unknown>) {
  return call(complete, "/api/task-complete", {
    method: "POST",
    headers: { "x-api-key": admin },
    json: body,
  });
}

/** POST /api/task-refund (finance settles a pending refund) with `key`; `headers` on top (e.g. Idempotency-Key). */
export function settleRefund(
  key: string,
  body: Record<string, unknown>,
  headers: Record<string, string> = {},
) {
  return call(refund, "/api/task-refund", {
    method: "POST",
    headers: { "x-api-key": key, ...headers },
    json: body,
  });
}

/** The `refund-settled` e-mails queued for task `taskId`, one per settlement. */
export async function refundSettledEmails(taskId: string) {
  return (await getDb())
    .select()
    .from(emails)
    .where(and(eq(emails.taskId, taskId), eq(emails.template, "refund-settled")));
}

export function cancelTask(taskId: string, headers: Record<string, string> = {}, query = "") {
  return call(cancel, `/api/submit-task?task_id=${encodeURIComponent(taskId)}${query}`, {
    method: "DELETE",
    headers,
  });
}

/** A proof file input made from the sandbox PNG generator. */
export function pngProof(name = "storefront.png") {
  const png = sampleProofPng("proof");
  return { filename: name, type: "image/png", content: png.bytes.toString("base64") };
}
