/**
 * /api/submit-task — submit (POST), status (GET), cancel (DELETE). The submission (policy screen,
 * pricing, geography) and the cancellation are imported by the first request that needs them, so
 * an instance started by a status poll does not load them (cold start, docs/performance.md).
 */
import { presentedJwt } from "../lib/auth/jwt.js";
import { ApiError } from "../lib/http/errors.js";
import { endpoint, route } from "../lib/http/handler.js";
import { json } from "../lib/http/response.js";
import { presentedAccessToken } from "../lib/keys/credentials.js";
import { cancelTaskOperation, getTaskStatusOperation, submitTaskOperation } from "../lib/tasks/operations.js";
import { readTaskStatus } from "../lib/tasks/read-task-status.js";
import { rejectForeignToken } from "../lib/tasks/state/task-access.js";
import { retryAfterSeconds } from "../lib/tasks/task-advice.js";
import { taskStatusView } from "../lib/tasks/task-view.js";

/**
 * The account of the client session a request sends (`Authorization: Bearer <jwt>`, the client
 * dashboard), or undefined; the session code is imported only when a token is sent.
 * @throws DomainError UNAUTHORIZED for a token that is sent and invalid, expired or revoked
 */
async function clientAccountOf(request: Request): Promise<string | undefined> {
  const jwt = presentedJwt(request);
  if (!jwt) return undefined;
  const { verifyClientSession } = await import("../lib/auth/sessions.js");
  return (await verifyClientSession(jwt)).account.id;
}

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
  POST: endpoint(submitTaskOperation, async ({ body, caller, request, agent, ip }) => {
    const sandbox = sandboxMode(request);
    if (!caller && !sandbox) {
      // Each real keyless submission reaches a person's review queue: a daily budget per IP (/64).
      const [{ enforceLimits }, { rateLimitSubject }] = await Promise.all([
        import("../lib/ratelimit/enforce.js"),
        import("../lib/ratelimit/limiter.js"),
      ]);
      await enforceLimits([
        {
          policy: "anon_submission",
          identifier: rateLimitSubject(ip),
          what: "real task submissions without an API key per IP per day (send an API key, or X-Service-Mode: sandbox)",
        },
      ]);
    }
    const { submitTask } = await import("../lib/tasks/submit-task.js");
    return submitTask({ body, caller, agent, sandbox });
  }),
  GET: endpoint(getTaskStatusOperation, async ({ query, caller, request }) => {
    const accessToken = presentedAccessToken(request);
    const { task, view } = await readTaskStatus(
      query.task_id,
      { caller, accessToken, clientAccountId: await clientAccountOf(request) },
      { authorize: (t) => rejectForeignToken(t, accessToken) },
    );
    const retryAfter = retryAfterSeconds(task);
    return json(view, 200, retryAfter === null ? {} : { "retry-after": String(retryAfter) });
  }),
  DELETE: endpoint(cancelTaskOperation, async ({ query, body, caller, request }) => {
    const { cancelTask } = await import("../lib/tasks/cancel-task.js");
    const { task, access } = await cancelTask(
      query.task_id,
      { caller, accessToken: query.access_token ?? presentedAccessToken(request) },
      body.reason,
    );
    return taskStatusView(task, access);
  }),
});
