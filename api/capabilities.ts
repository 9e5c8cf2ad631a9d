/** GET /api/capabilities — the machine-readable manifest. */
import { endpoint, route } from "../lib/http/handler.js";
import { buildCapabilities } from "../lib/system/capabilities.js";
import { getCapabilitiesOperation } from "../lib/system/descriptors/operations.js";

export const { GET, HEAD, OPTIONS, POST, PUT, PATCH, DELETE } = route({
  GET: endpoint(getCapabilitiesOperation, ({ config }) => buildCapabilities(config)),
});
