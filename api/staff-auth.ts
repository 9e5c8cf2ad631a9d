/**
 * POST /api/staff-auth?action=sign-in|sign-out|accept-invite|confirm-totp and GET /api/staff-auth
 * (the session) — staff sign-in (issue 26). `sign-in` (the default action) goes through the
 * operation carrying the per-IP login limit.
 */
import { endpoint, route } from "../lib/http/handler.js";
import { json } from "../lib/http/response.js";
import { staffAuthOperation, staffSessionOperation, staffSignInOperation } from "../lib/staff/operations.js";
import { staffAuth, staffSession } from "../lib/staff/staff-auth.js";

const answer = async (result: ReturnType<typeof staffAuth>) => {
  const { body, setCookie } = await result;
  return json(
    body,
    200,
    setCookie ? { "set-cookie": setCookie, "cache-control": "no-store" } : { "cache-control": "no-store" },
  );
};

const signIn = endpoint(staffSignInOperation, ({ query, body, request }) =>
  answer(staffAuth(query.action, body, request)),
);
const other = endpoint(staffAuthOperation, ({ query, body, request }) =>
  answer(staffAuth(query.action, body, request)),
);

export const { GET, HEAD, OPTIONS, POST, PUT, PATCH, DELETE } = route({
  GET: endpoint(staffSessionOperation, ({ request }) => staffSession(request)),
  POST: (request) => {
    // The last value wins, as in the wrapper's query parsing, so the limit cannot be dodged.
    const action = new URL(request.url).searchParams.getAll("action").at(-1);
    return (action === undefined || action === "" || action === "sign-in" ? signIn : other)(request);
  },
});
