/** POST /api/task-complete — dispatch, on site, complete with proof, or fail (admin). */
import { endpoint, route } from "../lib/http/handler.js";
import { completeTaskOperation } from "../lib/tasks/operations.js";
import { executeTask } from "../lib/tasks/state/execute-task.js";
import { taskStatusView } from "../lib/tasks/task-view.js";

export const { GET, HEAD, OPTIONS, POST, PUT, PATCH, DELETE } = route({
  POST: endpoint(completeTaskOperation, async ({ body }) =>
    taskStatusView((await executeTask(body)).task, "admin"),
  ),
});
