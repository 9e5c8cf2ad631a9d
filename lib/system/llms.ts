/** The /llms.txt overview for language models (llmstxt.org format), built from the operations. */

import { listServices } from "../catalog/services.js";
import { getConfig, publicBaseUrl } from "../config.js";
import { KNOWN_LOCATIONS } from "../geo/known-locations.js";
import { allOperations } from "../openapi/operations.js";

/** The Markdown text of /llms.txt. */
export function buildLlmsTxt(): string {
  const base = publicBaseUrl(getConfig());
  const services = listServices({ includeContract: false })
    .map((s) => `- ${s.id} ${s.name}: ${s.typical_duration_hours.min}-${s.typical_duration_hours.max} h`)
    .join("\n");
  const endpoints = allOperations()
    .filter((op) => !op.internal)
    .map(
      (op) =>
        `- ${op.method} ${base}${op.path} — ${op.summary} (auth: ${op.auth}${op.scope ? `, scope ${op.scope}` : ""})`,
    )
    .join("\n");
  return `# Physical Task Execution Service

> Hire human operators for real-world tasks in Quebec (Greater Montreal, Laurentians, Lanaudiere up to Mont-Tremblant; hub Terrebonne). A human reviews every task. Prices in CAD; payment in USDC on Ethereum or Base, or from a prepaid CAD account.

Estimates: 50 + site_hours*100 + transport_hours*100 + km_roundtrip*0.90 CAD, x1.25 when urgent, exact to the cent. Round trip = 2 x one-way km from Terrebonne; transport hours = round-trip km / 60 km/h.

Errors always use {"error":{"code","message","field","details"},"request_id"}. Honour Retry-After on 429 and 503 and on non-terminal task status responses.

## Services
${services}

## Known locations (one-way km from Terrebonne)
${KNOWN_LOCATIONS.map((l) => `${l.name} ${l.distance_km}`).join("; ")}

## Endpoints
${endpoints}

## Docs
- [OpenAPI 3.1](${base}/openapi.json)
- [Capabilities manifest](${base}/api/capabilities)
`;
}
