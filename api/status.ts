/** GET /api/status — platform health. */
import { endpoint, route } from "../lib/http/handler.js";
import { getStatusOperation } from "../lib/system/descriptors/operations.js";
import { getPlatformStatus } from "../lib/system/status.js";

export const { GET, HEAD, OPTIONS, POST, PUT, PATCH, DELETE } = route({
  GET: endpoint(getStatusOperation, () => getPlatformStatus()),
});
