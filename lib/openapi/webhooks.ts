/**
 * The `webhooks` section of /openapi.json (OpenAPI 3.1; issue 46 item 2): one entry per event type
 * of the registry (lib/db/schema/event-registry.ts), describing the signed `POST` a registered
 * webhook receives: the body `{ event_id, event, created_at, data }` with `data` the event's
 * payload schema (`components.schemas.<Type>Payload`, e.g. `TaskCreatedPayload`, which the typed
 * client exports), and the signature headers of lib/webhooks/signature.ts (docs/notifications.md
 * "Deliveries", "Verifying a delivery").
 */
import { EVENT_TYPES, EVENTS, type EventType } from "../db/schema/event-registry.js";
import { type Json, toSchema } from "./json-schema.js";

/** `task.dispute_resolved` → `TaskDisputeResolved`. */
export function eventSchemaName(type: EventType): string {
  return type
    .split(/[._]/)
    .map((part) => part.charAt(0).toUpperCase() + part.slice(1))
    .join("");
}

/** The headers every delivery carries (lib/webhooks/deliver.ts, lib/webhooks/signature.ts). */
const SIGNATURE_HEADERS: Json[] = [
  {
    name: "X-Service-Event",
    in: "header",
    required: true,
    description: "The event type (the body's `event`).",
    schema: { type: "string" },
  },
  {
    name: "X-Service-Delivery",
    in: "header",
    required: true,
    description:
      "The event id (`evt_…`, the body's `event_id`): the same on every retry; de-duplicate on it.",
    schema: { type: "string" },
  },
  {
    name: "X-Service-Timestamp",
    in: "header",
    required: true,
    description: "Unix seconds of this attempt; refuse a timestamp more than 5 minutes away.",
    schema: { type: "string", pattern: "^[0-9]+$" },
  },
  {
    name: "X-Service-Signature",
    in: "header",
    required: true,
    description:
      '`sha256=<hex HMAC-SHA256(secret, timestamp + "." + raw body)>` with the webhook\'s `whsec_…` secret; ' +
      "verify the raw bytes before parsing, in constant time (docs/notifications.md).",
    schema: { type: "string", pattern: "^sha256=[0-9a-f]{64}$" },
  },
];

/**
 * The `webhooks` object of the document: one path item per event type with a `post` operation.
 * Payload schemas are added to `components` (mutated) as `<Type>Payload`.
 */
export function webhooksSection(components: Json): Json {
  const webhooks: Json = {};
  for (const type of EVENT_TYPES) {
    const name = eventSchemaName(type);
    const definition = EVENTS[type];
    const data = toSchema(
      definition.payload.meta({ id: `${name}Payload`, description: definition.description }),
      "output",
      components,
    );
    webhooks[type] = {
      post: {
        operationId: `webhook${name}`,
        summary: type,
        description: `${definition.description} Sent to each webhook registered for \`${type}\` (POST /api/webhooks). Receivers must ignore members they do not know.`,
        tags: ["Webhooks"],
        parameters: structuredClone(SIGNATURE_HEADERS),
        requestBody: {
          required: true,
          content: {
            "application/json": {
              schema: {
                type: "object",
                required: ["event_id", "event", "created_at", "data"],
                properties: {
                  event_id: { type: "string", description: "`evt_…`, unique per event" },
                  event: { type: "string", const: type },
                  created_at: { type: "string", format: "date-time" },
                  data,
                },
              },
              examples: {
                example: {
                  value: {
                    event_id: "evt_01JDX3",
                    event: type,
                    created_at: "2026-11-28T14:00:00.000Z",
                    data: definition.example,
                  },
                },
              },
            },
          },
        },
        responses: {
          "200": {
            description:
              "Any 2xx acknowledges the delivery; anything else (a 3xx included) or no answer within WEBHOOK_TIMEOUT_MS is retried.",
          },
        },
      },
    };
  }
  return webhooks;
}
