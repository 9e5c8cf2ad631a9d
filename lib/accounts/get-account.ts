/**
 * GET /api/client-account (spec "Client accounts"). Credentials, checked by the handler wrapper
 * (auth mode "key_or_client"; at least one is present):
 *
 * - a client JWT (`Authorization: Bearer <jwt>` from POST /api/client-auth login), checked
 *   against its server-side session (lib/auth/sessions.ts): its own account;
 *   `include=dashboard` and `invoice_id` need it (or an admin key);
 * - an API key: the account the key is **linked** to by the account's verified owner
 *   (404 when none; the key's typed contact e-mail grants nothing); admins may look up any
 *   account with `email` (and read its dashboard), and read any invoice by `invoice_id`; any key
 *   reads, by `invoice_id`, the USDC receipt and credit notes of a task it submitted (with the
 *   account billed, or none: docs/decisions.md);
 * - neither: 401 (raised by the wrapper).
 */
import type { ClientPrincipal } from "../auth/sessions.js";
import { getInvoiceOrThrow, type InvoiceView, readInvoiceOrThrow } from "../billing/invoices.js";
import type { ClientAccount } from "../db/schema/index.js";
import { DomainError } from "../errors.js";
import type { Caller } from "../keys/authenticate.js";
import { type AccountView, accountView } from "./account-view.js";
import { accountDashboard, type Dashboard } from "./dashboard.js";
import type { GetAccountQuery } from "./schemas.js";
import { getAccountByEmailOrThrow, getAccountForKeyOrThrow } from "./store/find-account.js";

/** The response. */
export interface AccountResponse {
  /** Absent only when a key reads the receipt of a task without account (`invoice_id`). */
  account?: AccountView;
  dashboard?: Dashboard;
  invoice?: InvoiceView;
  /** action=export: filled by the adapter (lib/privacy/export.ts) once this answer allowed it. */
  export?: Record<string, unknown>;
}

/**
 * Who reads: the verified client session (its JWT wins when a key is sent too), else the API key.
 */
export type AccountReader =
  | { client: ClientPrincipal; caller: Caller | null }
  | { client: null; caller: Caller };

/**
 * Answers for `reader` (see the module comment).
 * @throws DomainError UNAUTHORIZED (dashboard/invoice without a JWT or an admin key), FORBIDDEN (`email`
 *   of another account without admin), NOT_FOUND (no linked account, unknown invoice)
 */
export async function getAccount(reader: AccountReader, query: GetAccountQuery): Promise<AccountResponse> {
  const { client, caller } = reader;
  if (!client && query.invoice_id && !query.include && !query.action) {
    const read = await readInvoiceOrThrow({ key: caller }, query.invoice_id);
    return {
      ...(read.account ? { account: await accountView(read.account) } : {}),
      invoice: read.invoice,
    };
  }
  let account: ClientAccount;
  let privileged: boolean;
  if (client) {
    const found = client.account;
    if (query.email && query.email.toLowerCase() !== found.email) {
      throw new DomainError("FORBIDDEN", "A client token reads only its own account", { field: "email" });
    }
    account = found;
    privileged = true;
  } else {
    if (caller.isAdmin) {
      account = query.email
        ? await getAccountByEmailOrThrow(query.email)
        : await getAccountForKeyOrThrow(caller.keyId);
    } else {
      account = await getAccountForKeyOrThrow(caller.keyId);
      if (query.email && query.email.toLowerCase() !== account.email) {
        throw new DomainError("FORBIDDEN", "Only an admin key may look up another account by email", {
          field: "email",
        });
      }
    }
    privileged = caller.isAdmin;
  }
  if ((query.include || query.invoice_id || query.action) && !privileged) {
    throw new DomainError(
      "UNAUTHORIZED",
      "include=dashboard and action=export require the client token: Authorization: Bearer <jwt> from POST /api/client-auth?action=login",
      { field: query.invoice_id ? "invoice_id" : query.action ? "action" : "include" },
    );
  }
  const out: AccountResponse = { account: await accountView(account) };
  if (query.include === "dashboard") out.dashboard = await accountDashboard(account);
  if (query.invoice_id) out.invoice = await getInvoiceOrThrow(account, query.invoice_id);
  return out;
}
