/** Shared steps of the field tests: a paid task, assignment, check-in and uploads through the real handlers. */
import { randomUUID } from "node:crypto";
import { POST as proofPost } from "../../api/field-proof.js";
import { GET as visitGet, POST as visitPost } from "../../api/field-visit.js";
import { POST as assignPost } from "../../api/task-assign.js";
import { keyHeaders } from "../helpers/keys.js";
import { call } from "../helpers/request.js";
import { recordPayment, reviewTask, submitTask, validTask } from "../helpers/tasks.js";

/** Submits a task with `agent`, approves it and records a payment with `admin`; returns its id and place [lon, lat]. */
export async function paidTask(
  admin: string,
  agent: string,
  extra: Record<string, unknown> = {},
): Promise<{ taskId: string; place: [number, number] }> {
  const { body } = await submitTask({ ...validTask, ...extra }, keyHeaders(agent));
  const taskId = body.task_id as string;
  await reviewTask(admin, { task_id: taskId, action: "approve", price_cad: 200 });
  const paid = await recordPayment(admin, { task_id: taskId, note: "cash" });
  if (paid.res.status !== 200) throw new Error(JSON.stringify(paid.body));
  return { taskId, place: paid.body.location.coordinates as [number, number] };
}

/** Headers of a POST: `headers` plus a fresh Idempotency-Key unless one is given. */
const post = (headers: Record<string, string>, key: string = randomUUID()) => ({
  method: "POST",
  headers: { ...headers, "idempotency-key": key },
});

export function assign(headers: Record<string, string>, body: Record<string, unknown>) {
  return call(assignPost, "/api/task-assign", { ...post(headers), json: body });
}

export function visit(headers: Record<string, string>, body: Record<string, unknown>, key?: string) {
  return call(visitPost, "/api/field-visit", { ...post(headers, key), json: body });
}

export function myTasks(headers: Record<string, string>) {
  return call(visitGet, "/api/field-visit", { headers });
}

export function uploadProof(headers: Record<string, string>, body: Record<string, unknown>, key?: string) {
  return call(proofPost, "/api/field-proof", { ...post(headers, key), json: body });
}

/** Metres per degree of latitude (mean; the tests allow a metre or so either way). */
const METRES_PER_DEGREE = 111_195;

/** The position `metres` north of `place` ([lon, lat]) as check-in fields. */
export function near(place: [number, number], metres: number, accuracy = 10) {
  return { latitude: place[1] + metres / METRES_PER_DEGREE, longitude: place[0], accuracy_m: accuracy };
}
