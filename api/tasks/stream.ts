/** GET /api/tasks/stream?task_id= — server-sent events of one task (lib/stream). */
import { endpoint, route } from "../../lib/http/handler.js";
import { eventStream } from "../../lib/http/response.js";
import { openTaskStream } from "../../lib/stream/open-task-stream.js";
import { taskStreamOperation } from "../../lib/stream/operations.js";

export const { GET, HEAD, OPTIONS, POST, PUT, PATCH, DELETE } = route({
  GET: endpoint(taskStreamOperation, async ({ request, query, caller, config }) => {
    const stream = await openTaskStream({ request, query, caller, config });
    return eventStream(stream.body, { "x-stream-timeout": String(stream.timeoutSeconds) });
  }),
});
