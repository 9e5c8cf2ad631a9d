/**
 * POST /api/staff-auth?action=sign-in|sign-out|accept-invite|confirm-totp and GET /api/staff-auth
 * (the session) — staff sign-in (issue 26). Failed sign-ins are counted per account and per IP
 * inside `signIn` (lib/staff/accounts.ts; issue 44 item 4), successes not at all.
 */
import { endpoint, route } from "../lib/http/handler.js";
import { json } from "../lib/http/response.js";
import { staffAuthOperation, staffSessionOperation } from "../lib/staff/operations.js";
import { staffAuth, staffSession } from "../lib/staff/staff-auth.js";

export const { GET, HEAD, OPTIONS, POST, PUT, PATCH, DELETE } = route({
  GET: endpoint(staffSessionOperation, ({ request }) => staffSession(request)),
  POST: endpoint(staffAuthOperation, async ({ query, body, request, ip }) => {
    const { body: answer, setCookie } = await staffAuth(query.action, body, request, ip);
    return json(
      answer,
      200,
      setCookie ? { "set-cookie": setCookie, "cache-control": "no-store" } : { "cache-control": "no-store" },
    );
  }),
});
