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
 * - Every submission (sandbox included) passes the policy screen first (lib/policy): a refused
 *   one is 422 POLICY_VIOLATION and only counted; the outcome (`allow` / `review`, reason codes,
 *   matched rules) is kept with the task and carried by `task.created`.
 * - The task row and its `task.created` event commit together (one prepared statement,
 *   lib/tasks/state/insert-task.ts).
 */

import type { AgentIdentity } from "../activity/agent-identity.js";
import { getService, servicePricing } from "../catalog/services.js";
import { type Config, getConfig } from "../config.js";
import type { NewTask, NewTaskEvent, TaskPolicyRecord } from "../db/schema/index.js";
import { DomainError } from "../errors.js";
import { kickOutbox } from "../events/kick-outbox.js";
import { type ResolvedLocation, resolveLocation } from "../geo/resolve-location.js";
import { locationNotFound } from "../geo/suggest-places.js";
import { newTaskId, randomAlphanumeric, sha256Hex } from "../ids.js";
import type { Caller } from "../keys/authenticate.js";
import { ACCESS_TOKEN_PREFIX } from "../keys/credentials.js";
import { checkOutboundUrl } from "../net/outbound-url.js";
import { enforcePolicy } from "../policy/enforce.js";
import { computeEstimate, type EstimateBreakdown } from "../pricing/compute-estimate.js";
import { provisionalExecutionDeadline, reviewDeadline } from "./state/deadlines.js";
import { insertTaskWithEvents } from "./state/insert-task.js";
import type { TaskSubmission } from "./state/schemas.js";
import { taskEventRow } from "./state/task-events.js";
import { taskLinks } from "./state/task-links.js";

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
  /** The policy screen's outcome (`allow` or `review`; a refusal is an error, not a task). */
  policy: { version: string; outcome: "allow" | "review"; reason_codes: string[] };
  _links: { self: string; stream: string; cancel: string };
}

/**
 * The place of `address`, which must lie inside the service zone.
 * @throws DomainError LOCATION_NOT_FOUND (no place in Quebec), OUT_OF_SERVICE_ZONE (with the
 *   matched place and its one-way distance from the hub), both on field `location_address`
 */
async function placeInZone(address: string): Promise<ResolvedLocation> {
  const place = await resolveLocation(address);
  if (!place) throw locationNotFound(address, "location_address");
  if (!place.in_service_zone) {
    throw new DomainError(
      "OUT_OF_SERVICE_ZONE",
      `${place.matched} is outside the service zone (Greater Montreal, Laurentians, Lanaudiere up to Mont-Tremblant)`,
      {
        field: "location_address",
        extra: { matched: place.matched, distance_km_one_way: place.distance_km_one_way },
      },
    );
  }
  return place;
}

/**
 * The estimate at submission, CAD: the midpoint of the service's typical duration on site
 * (the operator fixes the price at review), travel to `place`, and the urgency, on the service's
 * base fee and minimum hours (the terms GET /api/estimate quotes with `service_type`).
 */
function submissionEstimate(
  body: TaskSubmission,
  place: ResolvedLocation,
  config: Config,
): EstimateBreakdown {
  const service = getService(body.service_type, { includeContract: false })!;
  const siteHours = (service.typical_duration_hours.min + service.typical_duration_hours.max) / 2;
  return computeEstimate({
    siteHours,
    distanceKmOneWay: place.distance_km_one_way,
    urgency: body.urgency,
    speedKmh: config.TRANSPORT_SPEED_KMH,
    service: servicePricing(body.service_type),
  });
}

/** How the estimate compares with the requester's limits. */
interface BudgetCheck {
  /** Above `max_cost_cad`: the task is rejected at once, for `rejectionReason`. */
  rejectionReason: string | null;
  /** Above `budget_limit`: flagged for a counter-offer at review. */
  needsCounterOffer: boolean;
}

/** Compares `totalCad` with `max_cost_cad` and `budget_limit` of `body`. */
function checkBudget(body: TaskSubmission, totalCad: number): BudgetCheck {
  const overMax = body.max_cost_cad !== undefined && totalCad > body.max_cost_cad;
  return {
    rejectionReason: overMax
      ? `Estimate ${totalCad.toFixed(2)} CAD exceeds max_cost_cad ${body.max_cost_cad!.toFixed(2)} CAD`
      : null,
    needsCounterOffer: body.budget_limit !== undefined && totalCad > body.budget_limit,
  };
}

/** The events of a new task: `task.created`, then `task.rejected` when the budget check rejected it. */
function creationEvents(
  id: string,
  input: SubmitTaskInput,
  totalCad: number,
  budget: BudgetCheck,
  policy: TaskPolicyRecord,
  now: Date,
): NewTaskEvent[] {
  const { body, caller, sandbox } = input;
  const task = {
    id,
    status: "received" as const,
    apiKeyId: caller?.keyId ?? null,
    serviceType: body.service_type,
    sandbox,
  };
  const events: NewTaskEvent[] = [
    taskEventRow(
      task,
      "task.created",
      {
        estimate_cad: totalCad,
        needs_counter_offer: budget.needsCounterOffer,
        policy: { version: policy.version, outcome: policy.outcome, reason_codes: policy.reason_codes },
      },
      { taskStatus: "received", now },
    ),
  ];
  if (budget.rejectionReason) {
    events.push(
      taskEventRow(
        task,
        "task.rejected",
        { status: "rejected", previous_status: "received", reason: budget.rejectionReason },
        { taskStatus: "rejected", now },
      ),
    );
  }
  return events;
}

/** The `tasks` row of a new task (`accessToken` is stored as its SHA-256 only). */
function taskRow(
  id: string,
  input: SubmitTaskInput,
  place: ResolvedLocation,
  estimate: EstimateBreakdown,
  budget: BudgetCheck,
  deadlines: { review: Date; execution: Date },
  accessToken: string | undefined,
  policy: TaskPolicyRecord,
  now: Date,
): NewTask {
  const { body, caller, sandbox, agent } = input;
  const rejected = budget.rejectionReason !== null;
  const { total_cad, ...breakdown } = estimate;
  return {
    id,
    sandbox,
    serviceType: body.service_type,
    status: rejected ? "rejected" : "received",
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
    agentIdentity: agent ? `${agent.model}/${agent.agent_name}/${agent.org_id}` : null,
    orgId: agent?.org_id ?? null,
    estimateCad: total_cad,
    estimate: breakdown as unknown as Record<string, number>,
    location: { ...place },
    needsCounterOffer: budget.needsCounterOffer,
    reviewReason: budget.rejectionReason,
    reviewedAt: rejected ? now : null,
    reviewDeadline: deadlines.review,
    executionDeadline: deadlines.execution,
    policy,
    createdAt: now,
    updatedAt: now,
  };
}

/** The `message` of the creation response. */
function creationMessage(budget: BudgetCheck, sandbox: boolean, review: Date): string {
  if (budget.rejectionReason) return `${budget.rejectionReason}: the task was rejected automatically.`;
  return (
    `Task received${sandbox ? " (sandbox: it advances one step on each status poll)" : ""}. A human operator reviews it by ${review.toISOString()}.` +
    (budget.needsCounterOffer ? " The estimate exceeds budget_limit: expect a counter-offer." : "")
  );
}

/**
 * Validates and records a task: checks `callback_url` and the place, estimates, checks the
 * budget, then writes the task and its events in one statement and wakes the outbox.
 * @returns the creation response (spec "Task creation response"); `access_token` only for an
 *   anonymous caller
 * @throws DomainError POLICY_VIOLATION (refused by the policy screen, before anything else is checked),
 *   LOCATION_NOT_FOUND, OUT_OF_SERVICE_ZONE, VALIDATION_ERROR (callback_url)
 */
export async function submitTask(input: SubmitTaskInput): Promise<TaskCreated> {
  const { body, caller, sandbox } = input;
  const config = getConfig();
  const now = input.now ?? new Date();
  const policy = await enforcePolicy(
    [body.task_description, body.special_instructions, body.preferred_output],
    now,
  );
  if (body.callback_url) await checkOutboundUrl(body.callback_url, "callback_url");
  const place = await placeInZone(body.location_address);
  const estimate = submissionEstimate(body, place, config);
  const budget = checkBudget(body, estimate.total_cad);
  const accessToken = caller ? undefined : `${ACCESS_TOKEN_PREFIX}${randomAlphanumeric(40)}`;
  const id = newTaskId(sandbox ? "SANDBOX" : config.TASK_PREFIX, now);
  const deadlines = {
    review: reviewDeadline(now, body.urgency),
    execution: provisionalExecutionDeadline(now, body.urgency),
  };
  await insertTaskWithEvents(
    taskRow(id, input, place, estimate, budget, deadlines, accessToken, policy, now),
    creationEvents(id, input, estimate.total_cad, budget, policy, now),
  );
  kickOutbox(); // confirmation e-mail and webhooks of the committed events (lib/events)
  return {
    task_id: id,
    status: budget.rejectionReason ? "rejected" : "received",
    message: creationMessage(budget, sandbox, deadlines.review),
    sandbox,
    estimate_cad: estimate.total_cad,
    review_deadline: deadlines.review.toISOString(),
    execution_deadline: deadlines.execution.toISOString(),
    created_at: now.toISOString(),
    ...(accessToken ? { access_token: accessToken } : {}),
    policy: { version: policy.version, outcome: policy.outcome, reason_codes: policy.reason_codes },
    _links: taskLinks(id),
  };
}
