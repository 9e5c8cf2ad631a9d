/**
 * POST /api/client-auth?action=login|logout|verify-email|reset-request|reset-confirm — human
 * client login, logout and e-mailed one-time codes. `login` (the default action) goes through
 * the operation carrying the per-IP login limit; the others do not count against it. `logout`
 * goes through the operation whose client JWT the wrapper checks.
 */
import { clientAuth } from "../lib/accounts/client-auth.js";
import { clientAuthOperation, clientLoginOperation, clientLogoutOperation } from "../lib/auth/operations.js";
import { endpoint, route } from "../lib/http/handler.js";

const login = endpoint(clientLoginOperation, ({ query, body, ip, client }) =>
  clientAuth(query.action, body, { ip, client }),
);
const logout = endpoint(clientLogoutOperation, ({ query, body, ip, client }) =>
  clientAuth(query.action, body, { ip, client }),
);
const other = endpoint(clientAuthOperation, ({ query, body, ip, client }) =>
  clientAuth(query.action, body, { ip, client }),
);

export const { GET, HEAD, OPTIONS, POST, PUT, PATCH, DELETE } = route({
  POST: (request) => {
    // The last value wins, as in the wrapper's query parsing, so the limit cannot be dodged.
    const action = new URL(request.url).searchParams.getAll("action").at(-1);
    if (action === undefined || action === "" || action === "login") return login(request);
    return (action === "logout" ? logout : other)(request);
  },
});
