/**
 * POST /api/task-complete — dispatch, on site, complete with proof, or fail (admin). A `field` staff
 * member acts only on the tasks assigned to it (403 otherwise).
 */
import { endpoint, route } from "../lib/http/handler.js";
import { completeTaskOperation } from "../lib/tasks/operations.js";
import { executeTask } from "../lib/tasks/state/execute-task.js";
import { taskStatusView } from "../lib/tasks/task-view.js";

export const { GET, HEAD, OPTIONS, POST, PUT, PATCH, DELETE } = route({
  POST: endpoint(completeTaskOperation, async ({ body, caller }) =>
    taskStatusView((await executeTask(body, new Date(), { caller })).task, "admin"),
  ),
});
