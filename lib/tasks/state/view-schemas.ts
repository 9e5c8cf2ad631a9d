/** Response schemas of the task operations (docs/api-conventions.md "Status response"), for /openapi.json. */
import { z } from "zod";
import { SITE_VISIT_RULES, TASK_STATUSES } from "../../db/schema/enums.js";
import { disputeSummarySchema } from "./dispute-schemas.js";

const dateTime = z.string().meta({ format: "date-time" });

export const paymentNetworkSchema = z.object({
  network: z.string().meta({ examples: ["base"] }),
  chain_id: z.number().int(),
  usdc_contract: z.string(),
  wallet: z.string().meta({ description: "Send exactly payment_usdc USDC here." }),
  confirmations: z.number().int().optional(),
});

export const paymentDetailsSchema = z
  .object({
    method: z.enum(["usdc", "account", "manual"]).nullable(),
    amount_cad: z.number().meta({ description: "CAD" }),
    payment_usdc: z
      .string()
      .nullable()
      .meta({
        description:
          "Exact USDC amount, 6 decimals, as a string (send exactly this, once). It identifies the task: a transfer dated before the task was given this amount does not pay it.",
        examples: ["234.070001"],
      }),
    networks: z.array(paymentNetworkSchema),
    x402_url: z.string().nullable().optional().meta({
      description:
        "Awaiting payment with x402 on: POST here (x402 v2 PAYMENT-SIGNATURE or v1 X-PAYMENT, any x402 client) to pay by a signed EIP-3009 authorization, the service paying the gas (docs/x402.md). Null otherwise; the plain transfer to `networks[].wallet` works either way.",
    }),
    exchange_rate: z.number().nullable().meta({ description: "USD per CAD used" }),
    rate_source: z.string().nullable(),
    expires_at: dateTime.nullable(),
    paid_at: dateTime.nullable(),
    network: z.string().nullable().optional(),
    tx_hash: z.string().nullable().optional(),
    receipt_invoice_id: z.string().nullable().optional().meta({
      description:
        "Paid in USDC: the receipt's invoice id (`inv_…`), issued with the payment; read it with GET /api/client-account?invoice_id=…(&format=pdf) using the key that submitted the task, the account's client token or an admin key, or over MCP as the resource task://{task_id}/receipt (JSON and PDF; a keyless requester with its access_token). Null otherwise.",
    }),
  })
  .meta({ id: "PaymentDetails" });

export const proofFileSchema = z
  .object({ filename: z.string(), type: z.string(), content: z.string().meta({ description: "base64" }) })
  .meta({ id: "ProofFile" });

export const proofFileDetailsSchema = z
  .object({
    filename: z.string(),
    type: z.string(),
    size: z.number().int().meta({ description: "Bytes." }),
    sha256: z
      .string()
      .meta({ description: "Lowercase hex SHA-256 of the file's bytes (as in the receipt)." }),
    capture: z.record(z.string(), z.unknown()).nullable().meta({
      description:
        "Capture metadata read from the file (photos, videos): captured_at, gps {latitude, longitude}, distance_km from the task's place, within_execution_window, flags; null when the file carries none.",
    }),
  })
  .meta({ id: "ProofFileDetails" });

export const policyOutcomeSchema = z
  .object({
    version: z.string().meta({ description: "Version of the policy rules that screened the task." }),
    outcome: z.enum(["allow", "review"]).meta({
      description:
        "allow: nothing matched; review: the operator sees the reasons first (refused tasks are not stored).",
    }),
    reason_codes: z.array(z.string()),
    overridden: z.boolean().meta({ description: "An operator approved the task despite a review outcome." }),
    matches: z
      .array(
        z.object({
          rule_id: z.string(),
          reason_code: z.string(),
          outcome: z.enum(["review", "refuse"]),
          matched_text: z.string(),
        }),
      )
      .optional()
      .meta({ description: "Owner or admin only: the rules that matched and the words they matched." }),
    override: z
      .object({ at: dateTime, action: z.string(), operator_notes: z.string().nullable() })
      .nullable()
      .optional()
      .meta({ description: "Owner or admin only: the operator's approval despite a review outcome." }),
  })
  .meta({ id: "PolicyOutcome" });

/**
 * A task's site visit (issue 26 items 5-6): the assigned field person's check-in and check-out.
 * In the owner's and admin's status, the `task.completed` webhook and callback, and the receipt.
 */
export const siteVisitSchema = z
  .object({
    checked_in_at: dateTime.meta({
      description:
        "When the check-in was made: for one made offline, the phone's captured_at (issue 44 item 5).",
    }),
    check_in_received_at: dateTime.optional().meta({
      description:
        "When the server received the check-in (later than checked_in_at for one made offline). Absent from receipts issued before issue 44 item 5.",
    }),
    check_in_offline: z.boolean().optional().meta({
      description: "The check-in was made offline and sent when the network returned (captured_at).",
    }),
    checked_out_at: dateTime.nullable(),
    check_in_distance_m: z.number().nullable().meta({
      description:
        "Great-circle distance from the reported position to the task's resolved place, metres (null when the task has no coordinates).",
    }),
    accuracy_m: z.number().meta({ description: "Accuracy the device reported at check-in, metres." }),
    within_geofence: z.boolean().meta({
      description:
        "The check-in was within GEOFENCE_RADIUS_M plus the reported accuracy (capped by GEOFENCE_ACCURACY_CAP_M); false = accepted with a reason, flagged.",
    }),
    reason: z
      .string()
      .optional()
      .meta({ description: "The field person's reason for a check-in outside the geofence." }),
  })
  .meta({ id: "SiteVisit" });

/**
 * How a task stands against its service's site-visit rule (issue 44 item 1; lib/tasks/state/visit-rules.ts):
 * in the owner's and admin's status, the field app's task, the `task.completed` / `task.failed`
 * events and the signed receipt (`visit_rule`).
 */
export const visitRuleSchema = z
  .object({
    rule: z.enum(SITE_VISIT_RULES).meta({
      description:
        "The service's rule (catalog `site_visit`): required, optional or none. Stored when the task finished; before that, the catalog's.",
    }),
    outcome: z.enum(["inside_geofence", "outside_geofence", "no_visit"]).meta({
      description: "The visit so far: a check-in inside the geofence, outside it (with a reason), or none.",
    }),
    flags: z.array(z.enum(["OUTSIDE_GEOFENCE", "NO_SITE_VISIT"])).meta({
      description:
        "OUTSIDE_GEOFENCE: checked in outside the fence (the reason is in site_visit); NO_SITE_VISIT: completed without the visit its service requires (the reason is no_visit_reason).",
    }),
    no_visit_reason: z.string().optional().meta({
      description: "Why an owner or an admin key completed a task that requires a visit without one.",
    }),
  })
  .meta({ id: "VisitRule" });

/** The words every owner-only member of the status carries. */
const OWNER_ONLY =
  'Owner or admin only (docs/security.md "Who can read what"): absent from the public status.';

/** A member of the status that only the task's owner or an admin sees (lib/tasks/state/task-access.ts). */
function ownerOnly<T extends z.ZodType>(schema: T) {
  return schema.optional().meta({ description: OWNER_ONLY });
}

export const taskStatusSchema = z
  .object({
    task_id: z.string(),
    service_type: z.string(),
    status: z.enum(TASK_STATUSES),
    sandbox: z.boolean(),
    location_address: ownerOnly(z.string()),
    task_description: ownerOnly(z.string()),
    requester_contact: ownerOnly(z.string()),
    urgency: z.enum(["standard", "urgent"]),
    budget_limit: ownerOnly(z.number().nullable()),
    max_cost_cad: ownerOnly(z.number().nullable()),
    special_instructions: ownerOnly(z.string().nullable()),
    preferred_output: ownerOnly(z.string().nullable()),
    callback_url: ownerOnly(z.string().nullable()),
    lang: ownerOnly(z.enum(["fr", "en"])),
    estimate_cad: ownerOnly(z.number().nullable()),
    estimate: ownerOnly(z.record(z.string(), z.number()).nullable()),
    taxes: z.object({ gst_cad: z.number(), qst_cad: z.number() }).optional().meta({
      description:
        "Only when the operator is registered for GST/QST: GST 5 % and QST 9.975 % of the task's amount (counter-offer, approved price or estimate), CAD.",
    }),
    total_with_taxes_cad: z.number().optional().meta({
      description: "Only when registered: the amount to pay, taxes included (the USDC amount is for it).",
    }),
    location: ownerOnly(z.record(z.string(), z.unknown()).nullable()),
    created_at: dateTime,
    updated_at: dateTime,
    review_deadline: dateTime,
    execution_deadline: dateTime,
    review_reason: ownerOnly(z.string().nullable()),
    payment: paymentDetailsSchema.optional(),
    payment_usdc: z.string().nullable().optional(),
    counter_offer_amount: z.number().optional(),
    proof_files_data: z.array(proofFileSchema).optional(),
    proof_files: z.array(proofFileDetailsSchema).optional().meta({
      description:
        "Completed tasks: each proof file's size and SHA-256 (and capture metadata), in upload order.",
    }),
    receipt: z.string().optional().meta({
      description:
        "Completed or failed tasks: the signed completion receipt, a compact JWS (EdDSA / Ed25519); verify it with the keys at /.well-known/jwks.json.",
    }),
    policy: ownerOnly(policyOutcomeSchema.nullable()),
    assignment: ownerOnly(
      z
        .object({
          operator_display_name: z.string().meta({ description: "The name the staff member chose." }),
          assigned_at: dateTime,
          staff_id: z.string().optional().meta({ description: "Admin only: the staff member (`stf_…`)." }),
        })
        .nullable(),
    ),
    site_visit: ownerOnly(siteVisitSchema.nullable()),
    visit_rule: ownerOnly(visitRuleSchema),
    at_risk_at: z.string().meta({ format: "date-time" }).nullable().optional().meta({
      description:
        "Admin only: when the deadline watch reported the task at risk of missing its execution deadline (task.at_risk), or null.",
    }),
    operator_notes: z.string().nullable().optional(),
    completed_at: dateTime.nullable().optional(),
    failure_reason: z.string().nullable().optional(),
    refund_status: ownerOnly(z.enum(["none", "pending", "refunded", "denied"])),
    refund: z
      .object({
        status: z.enum(["pending", "refunded", "denied"]),
        amount_cad: z.number().nullable().meta({ description: "Requested (pending) or refunded, CAD." }),
        settled_at: dateTime.nullable(),
        tx_hash: z.string().nullable().meta({ description: "USDC refund transaction, when given." }),
        note: z.string().nullable(),
        amount_usdc: z.string().optional().meta({
          description: "A refund owed in USDC (dispute or SLA credit): the exact amount at the task's rate.",
        }),
      })
      .optional()
      .meta({
        description:
          "Present once a refund was requested (cancelled after payment) or owed (a dispute resolved with a refund, an SLA credit).",
      }),
    sla: z
      .object({
        review_deadline: dateTime,
        execution_deadline: dateTime,
        credit_percent_per_day: z.number().int(),
        cap_percent: z.number().int(),
        missed_by_hours: z
          .number()
          .positive()
          .optional()
          .meta({
            description:
              "A task finished (completed or failed) after its execution_deadline: by how many hours, in tenths " +
              "rounded up; present even when no credit is due (less than a full day late).",
          }),
        credited_cad: z.number().optional().meta({ description: "The SLA credit given, CAD, once given." }),
      })
      .optional()
      .meta({
        description:
          "Owner or admin: the deadlines and the SLA credit policy (percent of the price per full 24 h late after execution_deadline, capped), and the credit given.",
      }),
    dispute: disputeSummarySchema.optional().meta({
      description: "Owner or admin: the task's latest dispute (POST /api/task-dispute), open or resolved.",
    }),
    redo_of_task_id: z.string().optional().meta({
      description: "A follow-up task created by a dispute resolved `redo`: the task it redoes.",
    }),
    history: z.array(
      z.object({
        status: z.enum(TASK_STATUSES),
        event: z.string().optional().meta({ description: "The event's type (owner or admin only)." }),
        at: dateTime,
      }),
    ),
    actors: z
      .array(
        z.object({
          at: dateTime,
          action: z.string().meta({ description: "The audit action (task.approve, refund.settle, …)." }),
          actor_kind: z.enum(["staff", "admin_key", "system", "requester"]),
          actor_role: z
            .string()
            .nullable()
            .meta({ description: "The staff member's role; owner for an admin key." }),
          actor_display_name: z.string().nullable().meta({
            description:
              "A staff member's display name, an admin key's id (key_…), a job's name; null for the requester.",
          }),
        }),
      )
      .optional()
      .meta({
        description:
          "Admin only (an admin key or a staff member), never the owner's or the public status: who did each step, from the audit trail (docs/staff-and-audit.md), oldest first.",
      }),
    _polling: z.object({
      next_poll_seconds: z.number().int(),
      is_terminal: z.boolean(),
      recommended_action: z.string(),
    }),
    _links: z.record(z.string(), z.string()),
  })
  .meta({
    id: "TaskStatus",
    description:
      "Anyone with the task id reads the public part (task_id, service_type, status, sandbox, urgency, times, deadlines, history, _polling, _links); everything else needs the task's owner (the submitting key, a key of the same account, or the access_token) or an admin key.",
  });

export const taskCreatedSchema = z
  .object({
    task_id: z.string(),
    status: z.enum(TASK_STATUSES),
    message: z.string(),
    sandbox: z.boolean(),
    estimate_cad: z.number(),
    review_deadline: dateTime,
    execution_deadline: dateTime,
    created_at: dateTime,
    access_token: z.string().optional().meta({
      description: "Anonymous submissions only, shown once: for the event stream and cancellation.",
    }),
    policy: z
      .object({
        version: z.string(),
        outcome: z.enum(["allow", "review"]),
        reason_codes: z.array(z.string()),
      })
      .meta({
        description:
          "The policy screen's outcome: review means the operator checks the reason codes before approving (refused submissions get 422 POLICY_VIOLATION).",
      }),
    _links: z.object({ self: z.string(), stream: z.string(), cancel: z.string() }),
  })
  .meta({ id: "TaskCreated" });
