/** POST /api/task-assign — assign a task to a field staff member, reassign or unassign it (permission tasks.assign). */
import { assignTask } from "../lib/field/assign-task.js";
import { assignTaskOperation } from "../lib/field/operations.js";
import { endpoint, route } from "../lib/http/handler.js";
import { taskStatusView } from "../lib/tasks/task-view.js";

export const { GET, HEAD, OPTIONS, POST, PUT, PATCH, DELETE } = route({
  POST: endpoint(assignTaskOperation, async ({ body }) => taskStatusView(await assignTask(body), "admin")),
});
