/** GET /llms.txt (rewritten to /api/llms) — overview for language models. */
import { endpoint, route } from "../lib/http/handler.js";
import { getLlmsTxtOperation } from "../lib/system/descriptors/operations.js";
import { buildLlmsTxt } from "../lib/system/llms.js";

export const { GET, HEAD, OPTIONS, POST, PUT, PATCH, DELETE } = route({
  GET: endpoint(
    getLlmsTxtOperation,
    () => new Response(buildLlmsTxt(), { headers: { "content-type": "text/markdown; charset=utf-8" } }),
  ),
});
