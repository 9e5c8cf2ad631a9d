/**
 * /api/privacy-admin — operator (admin key): list (GET) the incident register or the erasure
 * requests; record an incident or process an erasure early (POST).
 */

import { endpoint, route } from "../lib/http/handler.js";
import { keyIdOf } from "../lib/keys/credentials.js";
import { listErasureRequests, processErasureEarly } from "../lib/privacy/erasure.js";
import { listIncidents, recordIncident } from "../lib/privacy/incidents.js";
import { listPrivacyAdminOperation, privacyAdminOperation } from "../lib/privacy/operations.js";

export const { GET, HEAD, OPTIONS, POST, PUT, PATCH, DELETE } = route({
  GET: endpoint(listPrivacyAdminOperation, async ({ query }) =>
    query.list === "erasure_requests"
      ? { erasure_requests: await listErasureRequests() }
      : { incidents: await listIncidents() },
  ),
  POST: endpoint(privacyAdminOperation, async ({ body, caller }) => {
    if (body.action === "process_erasure") {
      return { erasure_request: await processErasureEarly(body.account_id!, caller.keyId, body.reason!) };
    }
    return {
      incident: await recordIncident(
        {
          occurred_at: body.occurred_at,
          discovered_at: body.discovered_at!,
          description: body.description!,
          information_concerned: body.information_concerned!,
          persons_concerned: body.persons_concerned,
          risk_of_serious_injury: body.risk_of_serious_injury!,
          measures: body.measures,
          commission_notified_at: body.commission_notified_at,
          persons_notified_at: body.persons_notified_at,
        },
        keyIdOf(caller),
      ),
    };
  }),
});
