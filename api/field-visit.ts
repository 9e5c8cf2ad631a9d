/**
 * GET /api/field-visit — the signed-in field person's assigned open tasks; POST — check in to or out
 * of a task's site with the phone's position (geofence: lib/field/geofence.ts). Permission
 * tasks.execute; a staff session only.
 */
import { getConfig } from "../lib/config.js";
import { DomainError } from "../lib/errors.js";
import { listFieldTasks, readFieldTask } from "../lib/field/field-tasks.js";
import { listFieldTasksOperation, recordFieldVisitOperation } from "../lib/field/operations.js";
import { recordVisit } from "../lib/field/site-visits.js";
import { endpoint, route } from "../lib/http/handler.js";

export const { GET, HEAD, OPTIONS, POST, PUT, PATCH, DELETE } = route({
  GET: endpoint(listFieldTasksOperation, async ({ caller }) => {
    if (!caller.staff) {
      throw new DomainError("FORBIDDEN", "The field app's list is a staff member's own: sign in as staff");
    }
    const config = getConfig();
    return {
      tasks: await listFieldTasks(caller.staff.id),
      geofence_m: config.GEOFENCE_RADIUS_M,
      accuracy_cap_m: config.GEOFENCE_ACCURACY_CAP_M,
    };
  }),
  POST: endpoint(recordFieldVisitOperation, async ({ body, caller }) =>
    readFieldTask((await recordVisit(body, caller.staff?.id)).task),
  ),
});
