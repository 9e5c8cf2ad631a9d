/**
 * GET /api/client-account (spec "Client accounts"). Credentials, checked here because
 * the operation accepts either (auth "optional" in the wrapper):
 *
 * - a client JWT (`Authorization: Bearer <jwt>` from POST /api/client-auth login): its
 *   own account; `include=dashboard` and `invoice_id` need it (or an admin key);
 * - an API key: the account of the key's contact e-mail (404 when none); admins may
 *   look up any account with `email` (and read its dashboard and invoices);
 * - neither: 401.
 */
import { predatesPasswordChange, presentedJwt, verifyClientJwt } from "../auth/jwt.js";
import { getInvoiceOrThrow, type InvoiceView } from "../billing/invoices.js";
import type { ClientAccount } from "../db/schema/index.js";
import { ApiError } from "../http/errors.js";
import type { Caller } from "../keys/authenticate.js";
import { type AccountView, accountView } from "./account-view.js";
import { accountDashboard, type Dashboard } from "./dashboard.js";
import { findAccountById, getAccountByEmailOrThrow } from "./find-account.js";
import type { GetAccountQuery } from "./schemas.js";

/** The response. */
export interface AccountResponse {
  account: AccountView;
  dashboard?: Dashboard;
  invoice?: InvoiceView;
}

/**
 * Resolves the credential of `request` and answers.
 * @throws ApiError UNAUTHORIZED (no credential, bad JWT, dashboard/invoice without a JWT),
 *   FORBIDDEN (`email` without admin), NOT_FOUND (no account, unknown invoice)
 */
export async function getAccount(
  request: Request,
  caller: Caller | null,
  query: GetAccountQuery,
): Promise<AccountResponse> {
  const jwt = presentedJwt(request);
  let account: ClientAccount;
  let privileged: boolean;
  if (jwt) {
    const session = await verifyClientJwt(jwt);
    const found = await findAccountById(session.accountId);
    if (!found) throw new ApiError("UNAUTHORIZED", "The account of this token no longer exists");
    if (predatesPasswordChange(session, found)) {
      throw new ApiError(
        "UNAUTHORIZED",
        "The password was changed after this token was issued; log in again",
      );
    }
    if (query.email && query.email.toLowerCase() !== found.email) {
      throw new ApiError("FORBIDDEN", "A client token reads only its own account", { field: "email" });
    }
    account = found;
    privileged = true;
  } else if (caller) {
    if (query.email && !caller.isAdmin && query.email.toLowerCase() !== caller.contact) {
      throw new ApiError("FORBIDDEN", "Only an admin key may look up another account by email", {
        field: "email",
      });
    }
    account = await getAccountByEmailOrThrow(query.email ?? caller.contact);
    privileged = caller.isAdmin;
  } else {
    throw new ApiError(
      "UNAUTHORIZED",
      "Send an API key (x-api-key) or the client token (Authorization: Bearer <jwt> from POST /api/client-auth)",
    );
  }
  if ((query.include || query.invoice_id) && !privileged) {
    throw new ApiError(
      "UNAUTHORIZED",
      "include=dashboard and invoice_id require the client token: Authorization: Bearer <jwt> from POST /api/client-auth?action=login",
      { field: query.invoice_id ? "invoice_id" : "include" },
    );
  }
  const out: AccountResponse = { account: await accountView(account) };
  if (query.include === "dashboard") out.dashboard = await accountDashboard(account);
  if (query.invoice_id) out.invoice = await getInvoiceOrThrow(account, query.invoice_id);
  return out;
}
