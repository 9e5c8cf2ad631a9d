/** GET /openapi.json (rewritten to /api/openapi) — the OpenAPI 3.1 description. */
import { endpoint, route } from "../lib/http/handler.js";
import { buildOpenApiDocument } from "../lib/openapi/document.js";
import { getOpenApiOperation } from "../lib/system/descriptors/operations.js";

let cached: Record<string, unknown> | undefined;

export const { GET, HEAD, OPTIONS, POST, PUT, PATCH, DELETE } = route({
  GET: endpoint(getOpenApiOperation, () => {
    cached ??= buildOpenApiDocument();
    return cached;
  }),
});
