/** POST /api/task-dispute — the task's owner disputes a completed task (issue 27). */
import { presentedJwt } from "../lib/auth/jwt.js";
import { endpoint, route } from "../lib/http/handler.js";
import { presentedAccessToken } from "../lib/keys/credentials.js";
import { openDisputeOperation } from "../lib/tasks/operations.js";
import { taskStatusView } from "../lib/tasks/task-view.js";

export const { GET, HEAD, OPTIONS, POST, PUT, PATCH, DELETE } = route({
  POST: endpoint(openDisputeOperation, async ({ body, caller, request }) => {
    const jwt = presentedJwt(request);
    const clientAccountId = jwt
      ? (await (await import("../lib/auth/sessions.js")).verifyClientSession(jwt)).account.id
      : undefined;
    const { openDispute } = await import("../lib/tasks/open-dispute.js");
    const { task, access } = await openDispute(body, {
      caller,
      accessToken: presentedAccessToken(request),
      clientAccountId,
    });
    return taskStatusView(task, access);
  }),
});
