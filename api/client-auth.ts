/**
 * POST /api/client-auth?action=login|verify-email|reset-request|reset-confirm — human
 * client login and e-mailed one-time codes. `login` (the default action) goes through
 * the operation carrying the per-IP login limit; the others do not count against it.
 */
import { clientAuth } from "../lib/auth/client-auth.js";
import { clientAuthOperation, clientLoginOperation } from "../lib/auth/operations.js";
import { endpoint, route } from "../lib/http/handler.js";

const login = endpoint(clientLoginOperation, ({ query, body }) => clientAuth(query.action, body));
const other = endpoint(clientAuthOperation, ({ query, body }) => clientAuth(query.action, body));

export const { GET, HEAD, OPTIONS, POST, PUT, PATCH, DELETE } = route({
  POST: (request) => {
    // The last value wins, as in the wrapper's query parsing, so the limit cannot be dodged.
    const action = new URL(request.url).searchParams.getAll("action").at(-1);
    return (action === undefined || action === "" || action === "login" ? login : other)(request);
  },
});
