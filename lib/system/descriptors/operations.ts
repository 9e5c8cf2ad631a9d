/**
 * Operation descriptors of the discovery and scheduled endpoints. In a folder of their own: the
 * registry (lib/openapi/operations.ts) collects them while lib/system builds `/api/capabilities`
 * and `/llms.txt` from the registry, so descriptors in lib/system would make a folder cycle.
 */
import { z } from "zod";
import { defineOperation } from "../../http/operation.js";
import { capabilitiesSchema, cronResultSchema, platformStatusSchema } from "./schemas.js";

export const getCapabilitiesOperation = defineOperation({
  id: "getCapabilities",
  method: "GET",
  readOnly: true,
  path: "/api/capabilities",
  summary: "Machine-readable manifest of the platform (cached 5 minutes)",
  tags: ["Discovery"],
  auth: "none",
  response: capabilitiesSchema,
  cacheControl: "public, max-age=300",
});

export const getStatusOperation = defineOperation({
  id: "getStatus",
  method: "GET",
  readOnly: true,
  path: "/api/status",
  summary: "Platform health: storage, payment checker, queue",
  description: "Always 200; read `status` (`operational`, `degraded`, `partial_outage`) and `issues`.",
  tags: ["Discovery"],
  auth: "none",
  response: platformStatusSchema,
});

export const getOpenApiOperation = defineOperation({
  id: "getOpenApi",
  method: "GET",
  readOnly: true,
  path: "/openapi.json",
  summary: "This OpenAPI 3.1 description",
  tags: ["Discovery"],
  auth: "none",
  response: z.record(z.string(), z.unknown()),
  cacheControl: "public, max-age=300",
});

export const getLlmsTxtOperation = defineOperation({
  id: "getLlmsTxt",
  method: "GET",
  readOnly: true,
  path: "/llms.txt",
  summary: "Overview for language models (Markdown)",
  tags: ["Discovery"],
  auth: "none",
  response: z.string(),
  contentType: "text/markdown",
  cacheControl: "public, max-age=300",
});

const jwkSchema = z
  .object({
    kty: z.literal("OKP"),
    crv: z.literal("Ed25519"),
    x: z.string().meta({ description: "Public key, base64url (RFC 8037)." }),
    kid: z.string(),
    alg: z.literal("EdDSA"),
    use: z.literal("sig"),
  })
  .meta({ id: "ReceiptPublicKey" });

export const getReceiptKeysOperation = defineOperation({
  id: "getReceiptKeys",
  method: "GET",
  readOnly: true,
  path: "/.well-known/jwks.json",
  summary: "Public keys that verify completion receipts (JWK Set; current key first, retired keys kept)",
  description:
    "The `receipt` of a completed or failed task is a compact JWS signed with EdDSA (Ed25519); its header " +
    "`kid` names the key here. Retired keys stay listed so that old receipts keep verifying.",
  tags: ["Discovery"],
  auth: "none",
  response: z.object({ keys: z.array(jwkSchema) }),
  contentType: "application/jwk-set+json",
  cacheControl: "public, max-age=300",
});

/** Descriptor of a scheduled job endpoint (Vercel Cron sends `Authorization: Bearer CRON_SECRET`). */
function cronOperation(job: string, summary: string) {
  return defineOperation({
    id: `cron${job.replace(/(^|-)(\w)/g, (_, __, c: string) => c.toUpperCase())}`,
    method: "GET",
    path: `/api/cron/${job}`,
    summary,
    tags: ["Scheduled jobs"],
    auth: "cron",
    response: cronResultSchema,
    internal: true,
  });
}

export const checkPaymentsOperation = cronOperation(
  "check-payments",
  "Match on-chain USDC transfers to tasks",
);
export const deliverWebhooksOperation = cronOperation(
  "deliver-webhooks",
  "Dispatch events; send due webhook and callback deliveries and queued e-mails; purge expired dead letters",
);
export const expirePaymentsOperation = cronOperation(
  "expire-payments",
  "Expire unpaid tasks after 48 h; purge expired Idempotency-Key records and expired OAuth artifacts; fold the task roll-ups' appended counter rows",
);
export const slaCreditsOperation = cronOperation(
  "sla-credits",
  "Credit paid tasks finished after their execution deadline (SLA credits, issue 27)",
);
export const privacyRetentionOperation = cronOperation(
  "privacy-retention",
  "De-identify accounts whose erasure is due; delete activity logs and proof files past their retention",
);
export const exportJobsOperation = cronOperation(
  "export-jobs",
  "Write the chunks of queued export jobs (Law 25, large compliance exports); delete files past their link",
);
export const deadlineWatchOperation = cronOperation(
  "deadline-watch",
  "Flag paid and dispatched tasks near their execution deadline (task.at_risk, once)",
);
