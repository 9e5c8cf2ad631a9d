/**
 * Task submission (POST /api/submit-task; MCP `submit_task`).
 *
 * - The address must resolve to a place inside the service zone (422
 *   LOCATION_NOT_FOUND / OUT_OF_SERVICE_ZONE). `callback_url` must be HTTPS and resolve
 *   to public addresses only (lib/net).
 * - The estimate at submission uses the midpoint of the service's typical duration
 *   (the operator fixes the price at review). An estimate above `max_cost_cad` rejects
 *   the task at once (201 with status `rejected` and the reason: the task and both
 *   events are recorded); above `budget_limit` flags it for a counter-offer at review.
 * - Anonymous submissions get an `access_token` (shown once, stored as SHA-256) for the
 *   event stream and cancellation.
 * - The task row and its `task.created` event commit together (one prepared statement,
 *   lib/tasks/insert-task.ts).
 */

import type { AgentIdentity } from "../activity/agent-identity.js";
import { getService } from "../catalog/services.js";
import { getConfig } from "../config.js";
import type { NewTaskEvent } from "../db/schema/index.js";
import { kickOutbox } from "../events/kick-outbox.js";
import { resolveLocation } from "../geo/resolve-location.js";
import { ApiError } from "../http/errors.js";
import { newTaskId, prefixedId, randomAlphanumeric, sha256Hex } from "../ids.js";
import type { Caller } from "../keys/authenticate.js";
import { checkOutboundUrl } from "../net/outbound-url.js";
import { computeEstimate } from "../pricing/compute-estimate.js";
import { provisionalExecutionDeadline, reviewDeadline } from "./deadlines.js";
import { insertTaskWithEvents } from "./insert-task.js";
import type { TaskSubmission } from "./schemas.js";
import { taskLinks } from "./task-view.js";

/** Input of `submitTask`. */
export interface SubmitTaskInput {
  body: TaskSubmission;
  caller: Caller | null;
  sandbox: boolean;
  agent: AgentIdentity | null;
  now?: Date;
}

/** The creation response (spec "Task creation response"). */
export interface TaskCreated {
  task_id: string;
  status: "received" | "rejected";
  message: string;
  sandbox: boolean;
  estimate_cad: number;
  review_deadline: string;
  execution_deadline: string;
  created_at: string;
  access_token?: string;
  _links: { self: string; stream: string; cancel: string };
}

/** Prefix of anonymous access tokens. */
export const ACCESS_TOKEN_PREFIX = "tok_";

/**
 * Validates and records a task.
 * @throws ApiError LOCATION_NOT_FOUND, OUT_OF_SERVICE_ZONE, VALIDATION_ERROR (callback_url)
 */
export async function submitTask(input: SubmitTaskInput): Promise<TaskCreated> {
  const { body, caller, sandbox } = input;
  const config = getConfig();
  const now = input.now ?? new Date();
  if (body.callback_url) await checkOutboundUrl(body.callback_url, "callback_url");
  const place = await resolveLocation(body.location_address);
  if (!place) {
    throw new ApiError(
      "LOCATION_NOT_FOUND",
      "location_address matches no place in Quebec; give a full street address with its city",
      { field: "location_address" },
    );
  }
  if (!place.in_service_zone) {
    throw new ApiError(
      "OUT_OF_SERVICE_ZONE",
      `${place.matched} is outside the service zone (Greater Montreal, Laurentians, Lanaudiere up to Mont-Tremblant)`,
      {
        field: "location_address",
        extra: { matched: place.matched, distance_km_one_way: place.distance_km_one_way },
      },
    );
  }
  const service = getService(body.service_type, { includeContract: false })!;
  const siteHours = (service.typical_duration_hours.min + service.typical_duration_hours.max) / 2;
  const estimate = computeEstimate({
    siteHours,
    distanceKmOneWay: place.distance_km_one_way,
    urgency: body.urgency,
    speedKmh: config.TRANSPORT_SPEED_KMH,
  });
  const overMax = body.max_cost_cad !== undefined && estimate.total_cad > body.max_cost_cad;
  const needsCounterOffer = body.budget_limit !== undefined && estimate.total_cad > body.budget_limit;
  const accessToken = caller ? undefined : `${ACCESS_TOKEN_PREFIX}${randomAlphanumeric(40)}`;
  const id = newTaskId(sandbox ? "SANDBOX" : config.TASK_PREFIX, now);
  const review = reviewDeadline(now, body.urgency);
  const execution = provisionalExecutionDeadline(now, body.urgency);
  const rejectionReason = overMax
    ? `Estimate ${estimate.total_cad.toFixed(2)} CAD exceeds max_cost_cad ${body.max_cost_cad!.toFixed(2)} CAD`
    : null;
  const { total_cad, ...breakdown } = estimate;
  const common = { task_id: id, service_type: body.service_type, sandbox };
  const events: NewTaskEvent[] = [
    {
      id: prefixedId("evt"),
      taskId: id,
      type: "task.created",
      taskStatus: "received",
      apiKeyId: caller?.keyId ?? null,
      payload: {
        ...common,
        status: "received",
        estimate_cad: total_cad,
        needs_counter_offer: needsCounterOffer,
      },
      createdAt: now,
    },
  ];
  if (overMax) {
    events.push({
      id: prefixedId("evt"),
      taskId: id,
      type: "task.rejected",
      taskStatus: "rejected",
      apiKeyId: caller?.keyId ?? null,
      payload: { ...common, status: "rejected", previous_status: "received", reason: rejectionReason },
      createdAt: now,
    });
  }
  await insertTaskWithEvents(
    {
      id,
      sandbox,
      serviceType: body.service_type,
      status: overMax ? "rejected" : "received",
      locationAddress: body.location_address,
      taskDescription: body.task_description,
      requesterContact: body.requester_contact.toLowerCase(),
      urgency: body.urgency,
      budgetLimit: body.budget_limit ?? null,
      maxCostCad: body.max_cost_cad ?? null,
      specialInstructions: body.special_instructions ?? null,
      preferredOutput: body.preferred_output ?? null,
      callbackUrl: body.callback_url ?? null,
      lang: body.lang,
      apiKeyId: caller?.keyId ?? null,
      accessTokenHash: accessToken ? sha256Hex(accessToken) : null,
      agentIdentity: input.agent
        ? `${input.agent.model}/${input.agent.agent_name}/${input.agent.org_id}`
        : null,
      orgId: input.agent?.org_id ?? null,
      estimateCad: total_cad,
      estimate: breakdown as unknown as Record<string, number>,
      location: { ...place },
      needsCounterOffer,
      reviewReason: rejectionReason,
      reviewedAt: overMax ? now : null,
      reviewDeadline: review,
      executionDeadline: execution,
      createdAt: now,
      updatedAt: now,
    },
    events,
  );
  kickOutbox(); // confirmation e-mail and webhooks of the committed events (lib/events)
  const message = overMax
    ? `${rejectionReason}: the task was rejected automatically.`
    : `Task received${sandbox ? " (sandbox: it advances one step on each status poll)" : ""}. A human operator reviews it by ${review.toISOString()}.` +
      (needsCounterOffer ? " The estimate exceeds budget_limit: expect a counter-offer." : "");
  return {
    task_id: id,
    status: overMax ? "rejected" : "received",
    message,
    sandbox,
    estimate_cad: total_cad,
    review_deadline: review.toISOString(),
    execution_deadline: execution.toISOString(),
    created_at: now.toISOString(),
    ...(accessToken ? { access_token: accessToken } : {}),
    _links: taskLinks(id),
  };
}
