/**
 * /api/submit-task — submit (POST), status (GET), cancel (DELETE). The submission (policy screen,
 * pricing, geography) and the cancellation are imported by the first request that needs them, so
 * an instance started by a status poll does not load them (cold start, docs/performance.md).
 */
import { ApiError } from "../lib/http/errors.js";
import { endpoint, route } from "../lib/http/handler.js";
import { json } from "../lib/http/response.js";
import { cancelTaskOperation, getTaskStatusOperation, submitTaskOperation } from "../lib/tasks/operations.js";
import { readTaskStatus } from "../lib/tasks/read-task-status.js";
import { retryAfterSeconds } from "../lib/tasks/task-advice.js";
import { taskStatusView } from "../lib/tasks/task-view.js";

/** `X-Service-Mode`: absent, or `sandbox`. */
function sandboxMode(request: Request): boolean {
  const mode = request.headers.get("x-service-mode");
  if (mode === null || mode.trim() === "") return false;
  if (mode.trim().toLowerCase() === "sandbox") return true;
  throw new ApiError("VALIDATION_ERROR", "X-Service-Mode accepts only the value sandbox", {
    field: "X-Service-Mode",
  });
}

export const { GET, HEAD, OPTIONS, POST, PUT, PATCH, DELETE } = route({
  POST: endpoint(submitTaskOperation, async ({ body, caller, request, agent }) => {
    const sandbox = sandboxMode(request);
    const { submitTask } = await import("../lib/tasks/submit-task.js");
    return submitTask({ body, caller, agent, sandbox });
  }),
  GET: endpoint(getTaskStatusOperation, async ({ query, caller }) => {
    const { task, view } = await readTaskStatus(query.task_id, caller);
    const retryAfter = retryAfterSeconds(task);
    return json(view, 200, retryAfter === null ? {} : { "retry-after": String(retryAfter) });
  }),
  DELETE: endpoint(cancelTaskOperation, async ({ query, body, caller }) => {
    const { cancelTask } = await import("../lib/tasks/cancel-task.js");
    const { task } = await cancelTask(
      query.task_id,
      { caller, accessToken: query.access_token },
      body.reason,
    );
    return taskStatusView(task, caller);
  }),
});
