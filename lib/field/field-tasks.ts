/**
 * The field app's view of tasks (GET /api/field-visit, issue 26 item 5; docs/staff-and-audit.md
 * "Field app"): the signed-in field person's assigned open tasks (paid, dispatched, on site),
 * closest execution deadline first, each with what is needed on the way and on site: address,
 * instructions, deadline, the deadline watch's flag, coordinates with an OpenStreetMap link and a
 * `geo:` URI, the site visit and the proof files uploaded so far (no content).
 */
import { and, asc, eq, inArray } from "drizzle-orm";
import { getService } from "../catalog/services.js";
import { type Config, getConfig } from "../config.js";
import { getDb } from "../db/client.js";
import type { TaskStatus } from "../db/schema/enums.js";
import { proofFiles, type SiteVisit, siteVisits, type Task, tasks } from "../db/schema/index.js";
import { siteVisitView } from "../tasks/state/site-visit.js";
import { visitRuleOf, visitRuleView } from "../tasks/state/visit-rules.js";
import { geoUri, osmUrl, taskCoordinates } from "./geofence.js";
import type { FieldTask } from "./schemas.js";

/** Statuses of the tasks a field person still has to do. */
export const OPEN_FIELD_STATUSES: readonly TaskStatus[] = ["paid", "dispatched", "on_site"];

/** A proof file attached to a task, without content. */
export type AttachedProof = FieldTask["proof_files"][number];

/** The field view of `task` with its site visit and attached proof files. */
export function fieldTaskView(
  task: Task,
  visit: SiteVisit | null,
  files: readonly AttachedProof[],
  config: Pick<Config, "GEOFENCE_RADIUS_M"> = getConfig(),
): FieldTask {
  const place = taskCoordinates(task);
  return {
    task_id: task.id,
    service_type: task.serviceType,
    service_name: getService(task.serviceType, { includeContract: false })?.name ?? task.serviceType,
    status: task.status,
    urgency: task.urgency,
    location_address: task.locationAddress,
    task_description: task.taskDescription,
    special_instructions: task.specialInstructions,
    execution_deadline: task.executionDeadline.toISOString(),
    at_risk: task.atRiskAt !== null,
    at_risk_at: task.atRiskAt?.toISOString() ?? null,
    coordinates: place,
    map_url: place ? osmUrl(place) : null,
    geo_uri: place ? geoUri(place) : null,
    geofence_m: config.GEOFENCE_RADIUS_M,
    site_visit: siteVisitView(visit),
    visit_rule: visitRuleView(visitRuleOf(task.serviceType), task.status, visit, null),
    proof_files: [...files],
  };
}

/** The `proof_files` columns of an attached proof file as the field view names them (no content). */
export const attachedProofColumns = {
  filename: proofFiles.filename,
  type: proofFiles.mimeType,
  size: proofFiles.sizeBytes,
  sha256: proofFiles.sha256,
  capture: proofFiles.capture,
  deviceCapturedAt: proofFiles.deviceCapturedAt,
  createdAt: proofFiles.createdAt,
};

/**
 * The attached proof file of a row read with `attachedProofColumns` (no capture metadata: null;
 * `captured_at` the field app's time of a photo taken offline, `received_at` the upload's).
 */
export function attachedProof(
  row: Omit<AttachedProof, "capture" | "captured_at" | "received_at"> & {
    capture: AttachedProof["capture"] | undefined;
    deviceCapturedAt: Date | null;
    createdAt: Date;
  },
): AttachedProof {
  const { deviceCapturedAt, createdAt, ...rest } = row;
  return {
    ...rest,
    capture: row.capture ?? null,
    captured_at: deviceCapturedAt?.toISOString() ?? null,
    received_at: createdAt.toISOString(),
  };
}

/** The attached proof files (no content) of `taskIds`, in upload order, by task id. */
export async function attachedProofFiles(taskIds: readonly string[]): Promise<Map<string, AttachedProof[]>> {
  const out = new Map<string, AttachedProof[]>();
  if (taskIds.length === 0) return out;
  const db = await getDb();
  const rows = await db
    .select({ taskId: proofFiles.taskId, ...attachedProofColumns })
    .from(proofFiles)
    .where(inArray(proofFiles.taskId, [...taskIds]))
    .orderBy(asc(proofFiles.createdAt), asc(proofFiles.position), asc(proofFiles.id));
  for (const { taskId, ...file } of rows) out.set(taskId, [...(out.get(taskId) ?? []), attachedProof(file)]);
  return out;
}

/** The field view of task `task` read fresh (its visit and files). */
export async function readFieldTask(task: Task): Promise<FieldTask> {
  const db = await getDb();
  const [[visit], files] = await Promise.all([
    db.select().from(siteVisits).where(eq(siteVisits.taskId, task.id)),
    attachedProofFiles([task.id]),
  ]);
  return fieldTaskView(task, visit ?? null, files.get(task.id) ?? []);
}

/** The open tasks assigned to staff member `staffId`, closest execution deadline first. */
export async function listFieldTasks(staffId: string): Promise<FieldTask[]> {
  const db = await getDb();
  const rows = await db
    .select()
    .from(tasks)
    .where(and(eq(tasks.assignedStaffId, staffId), inArray(tasks.status, [...OPEN_FIELD_STATUSES])))
    .orderBy(asc(tasks.executionDeadline), asc(tasks.id));
  const ids = rows.map((t) => t.id);
  const [visits, files] = await Promise.all([
    ids.length ? db.select().from(siteVisits).where(inArray(siteVisits.taskId, ids)) : [],
    attachedProofFiles(ids),
  ]);
  const visitOf = new Map(visits.map((v) => [v.taskId, v]));
  return rows.map((t) => fieldTaskView(t, visitOf.get(t.id) ?? null, files.get(t.id) ?? []));
}
