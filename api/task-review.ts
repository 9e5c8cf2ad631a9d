/** POST /api/task-review — human review of a received task (admin). */
import { endpoint, route } from "../lib/http/handler.js";
import { reviewTaskOperation } from "../lib/tasks/operations.js";
import { reviewTask } from "../lib/tasks/review-task.js";
import { taskStatusView } from "../lib/tasks/task-view.js";

export const { GET, HEAD, OPTIONS, POST, PUT, PATCH, DELETE } = route({
  POST: endpoint(reviewTaskOperation, async ({ body }) =>
    taskStatusView((await reviewTask(body)).task, "admin"),
  ),
});
