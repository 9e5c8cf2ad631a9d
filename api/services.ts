/** GET /api/services — the service catalog. */
import { listServicesOperation } from "../lib/catalog/operations.js";
import { catalogLinks } from "../lib/catalog/schemas.js";
import { getService, listServices } from "../lib/catalog/services.js";
import { publicBaseUrl } from "../lib/config.js";
import { ApiError } from "../lib/http/errors.js";
import { endpoint, route } from "../lib/http/handler.js";

export const { GET, HEAD, OPTIONS, POST, PUT, PATCH, DELETE } = route({
  GET: endpoint(listServicesOperation, ({ query, config }) => {
    const options = { includeContract: query.contract };
    let services = listServices(options);
    if (query.id !== undefined) {
      const one = getService(query.id, options);
      if (!one)
        throw new ApiError("NOT_FOUND", `No service ${query.id}; ids are SVC-01 to SVC-05`, { field: "id" });
      services = [one];
    }
    return { services, count: services.length, _links: catalogLinks(publicBaseUrl(config)) };
  }),
});
