/** GET /api/task-assign — the people a task can be assigned to; POST — assign a task to a field staff member, reassign or unassign it (permission tasks.assign). */
import { assignTask, listAssignableStaff } from "../lib/field/assign-task.js";
import { assignTaskOperation, listAssignableStaffOperation } from "../lib/field/operations.js";
import { endpoint, route } from "../lib/http/handler.js";
import { taskStatusView } from "../lib/tasks/task-view.js";

export const { GET, HEAD, OPTIONS, POST, PUT, PATCH, DELETE } = route({
  GET: endpoint(listAssignableStaffOperation, async () => ({ staff: await listAssignableStaff() })),
  POST: endpoint(assignTaskOperation, async ({ body }) => taskStatusView(await assignTask(body), "admin")),
});
