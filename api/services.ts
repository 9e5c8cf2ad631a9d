/** GET /api/services — the service catalog. */
import { findServices } from "../lib/catalog/find-services.js";
import { listServicesOperation } from "../lib/catalog/operations.js";
import { catalogLinks } from "../lib/catalog/schemas.js";
import { publicBaseUrl } from "../lib/config.js";
import { endpoint, route } from "../lib/http/handler.js";

export const { GET, HEAD, OPTIONS, POST, PUT, PATCH, DELETE } = route({
  GET: endpoint(listServicesOperation, ({ query, config }) => ({
    ...findServices({ id: query.id, includeContract: query.contract }),
    _links: catalogLinks(publicBaseUrl(config)),
  })),
});
