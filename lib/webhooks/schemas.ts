/** Zod schemas of /api/webhooks and /api/webhooks/{webhook_id}/failures (docs/api-conventions.md "Webhooks"). */
import { z } from "zod";
import { EVENT_TYPES } from "../db/schema/event-registry.js";
import { queryNumber } from "../validation.js";

const dateTime = z.string().meta({ format: "date-time" });

/** Issue params that lib/http/validation.ts reports as 400 INVALID_FORMAT (spec: "400 invalid URL or events"). */
const SPEC_400 = { code: "INVALID_FORMAT" } as const;

/** At most this many active webhooks per API key (spec "Limits"). */
export const MAX_WEBHOOKS_PER_KEY = 5;

const webhookId = z
  .string()
  .trim()
  .min(1)
  .max(64)
  .meta({ description: "The webhook id (`wh_…`).", examples: ["wh_3kTqZ8YQ1rN0aB2cD4eF"] });

export const createWebhookBodySchema = z
  .strictObject({
    url: z
      .string()
      .trim()
      .min(1)
      .meta({
        description:
          "HTTPS URL that receives signed POST deliveries; it must not resolve to a private address (max 2048 characters).",
        examples: ["https://agent.example.com/hooks/tasks"],
      }),
    // Spec "POST /api/webhooks": "400 invalid URL or events" (docs/spec-precedence.md): an unknown
    // event name or an empty list is 400 INVALID_FORMAT, where the general rule would give 422.
    events: z
      .array(
        z
          .string()
          .check((ctx) => {
            if (!(EVENT_TYPES as readonly string[]).includes(ctx.value)) {
              ctx.issues.push({
                code: "invalid_value",
                values: [...EVENT_TYPES],
                input: ctx.value,
                message: `unknown event ${JSON.stringify(ctx.value)}; known events: ${EVENT_TYPES.join(", ")}`,
                params: SPEC_400,
              });
            }
          })
          .meta({ enum: [...EVENT_TYPES] }) // the check above is invisible to JSON Schema
          .pipe(z.enum(EVENT_TYPES)),
      )
      .check((ctx) => {
        if (ctx.value.length === 0) {
          ctx.issues.push({
            code: "custom",
            input: ctx.value,
            message: "give at least one event name",
            params: SPEC_400,
          });
        }
      })
      .max(EVENT_TYPES.length * 2)
      .transform((events) => [...new Set(events)])
      .meta({
        description: `Event names to receive (duplicates ignored): ${EVENT_TYPES.join(", ")}.`,
        examples: [["task.accepted", "task.completed", "task.failed"]],
      }),
  })
  .meta({ id: "CreateWebhookRequest" });
export type CreateWebhookBody = z.output<typeof createWebhookBodySchema>;

export const webhookItemSchema = z
  .object({
    webhook_id: z.string(),
    url: z.string(),
    events: z.array(z.enum(EVENT_TYPES)),
    created_at: dateTime,
  })
  .meta({ id: "Webhook" });

export const webhookCreatedSchema = webhookItemSchema
  .extend({
    secret: z.string().meta({
      description:
        "Signing secret (`whsec_…`). Shown once; store it to verify X-Service-Signature (see the README).",
      examples: ["whsec_9fJ2…"],
    }),
  })
  .meta({ id: "WebhookCreated" });

export const webhookListSchema = z
  .object({ webhooks: z.array(webhookItemSchema) })
  .meta({ id: "WebhookList" });

export const deleteWebhookBodySchema = z.strictObject({ webhook_id: webhookId });

export const webhookDeletedSchema = z.object({
  webhook_id: z.string(),
  deleted: z.literal(true),
  deleted_at: dateTime,
});

export const failuresQuerySchema = z.object({
  limit: queryNumber()
    .pipe(z.number().int().min(1).max(500))
    .optional()
    .default(100)
    .meta({ description: "Page size (max 500)." }),
  offset: queryNumber().pipe(z.number().int().min(0).max(1_000_000)).optional().default(0),
});

export const failedDeliverySchema = z
  .object({
    event_id: z.string(),
    task_id: z.string().nullable().meta({ description: "Null for billing events." }),
    event: z.string(),
    attempted_at: z.array(dateTime).meta({ description: "Every attempt, oldest first." }),
    last_http_status: z.number().int().nullable().meta({
      description: "HTTP status of the last attempt; null when no response came (timeout, refused, blocked).",
    }),
    last_error: z.string().nullable(),
    payload: z.record(z.string(), z.unknown()).meta({ description: "The exact body that was sent." }),
    fallback_email_sent: z.boolean(),
    dead_at: dateTime,
    expires_at: dateTime,
  })
  .meta({ id: "FailedDelivery" });

export const failuresListSchema = z
  .object({
    webhook_id: z.string(),
    total: z.number().int(),
    limit: z.number().int(),
    offset: z.number().int(),
    failures: z.array(failedDeliverySchema),
  })
  .meta({ id: "WebhookFailures" });

export const replayFailureBodySchema = z.strictObject({
  event_id: z
    .string()
    .trim()
    .min(1)
    .max(64)
    .meta({ description: "event_id of a dead-letter record of this webhook.", examples: ["evt_…"] }),
});

export const replayResultSchema = z.object({
  webhook_id: z.string(),
  event_id: z.string(),
  status: z.literal("pending"),
  next_attempt_at: dateTime,
});
