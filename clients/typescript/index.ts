/**
 * The typed client of the Physical Task Execution Service: openapi-fetch over the types that
 * openapi-typescript generates from /openapi.json (schema.d.ts, `npm run client:generate`). No
 * request code is written by hand: paths, query parameters, headers, bodies and answers are typed
 * from the document. See README.md beside this file.
 */
import createFetchClient, { type Client, type ClientOptions } from "openapi-fetch";
import type { components, paths, webhooks } from "./schema.js";

export type { components, paths, webhooks };

/** The event types the service sends to webhooks (the document's `webhooks`; issue 46 item 2). */
export type WebhookEventType = keyof webhooks;

/** The signed body of a webhook delivery of event `T`: `{ event_id, event, created_at, data }`. */
export type WebhookDelivery<T extends WebhookEventType> = NonNullable<
  webhooks[T]["post"]["requestBody"]
>["content"]["application/json"];

/** The payload (`data`) of event `T`, e.g. `WebhookPayload<"task.completed">`. */
export type WebhookPayload<T extends WebhookEventType> = WebhookDelivery<T>["data"];

/** Options of `createClient`: the server's origin and, optionally, an API key. */
export interface ServiceClientOptions extends Omit<ClientOptions, "baseUrl"> {
  /** Origin of the service, e.g. http://127.0.0.1:3000. */
  baseUrl: string;
  /** API key sent as `Authorization: Bearer <key>` on every request. */
  apiKey?: string;
}

/** A client whose every call is typed by the OpenAPI document. */
export function createClient(options: ServiceClientOptions): Client<paths> {
  const { apiKey, headers, ...rest } = options;
  return createFetchClient<paths>({
    ...rest,
    headers: {
      ...(apiKey ? { authorization: `Bearer ${apiKey}` } : {}),
      ...(headers as Record<string, string>),
    },
  });
}
