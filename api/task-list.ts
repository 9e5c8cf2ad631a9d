/** GET /api/task-list — the operator's task index (admin). */
import { endpoint, route } from "../lib/http/handler.js";
import { listTasks } from "../lib/tasks/list-tasks.js";
import { listTasksOperation } from "../lib/tasks/operations.js";

export const { GET, HEAD, OPTIONS, POST, PUT, PATCH, DELETE } = route({
  GET: endpoint(listTasksOperation, ({ query }) => listTasks(query)),
});
