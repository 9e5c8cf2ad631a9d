/** The postal address of a client account as the account responses and invoices (bill_to) show it. */
import type { ClientAccount } from "../db/schema/index.js";

/** An account's address in JSON: unset parts are null; `province` defaults to QC. */
export interface PostalAddress {
  line1: string | null;
  line2: string | null;
  city: string | null;
  province: string;
  postal_code: string | null;
}

/** The {@link PostalAddress} of `account`. */
export function postalAddress(account: ClientAccount): PostalAddress {
  return {
    line1: account.addressLine1,
    line2: account.addressLine2,
    city: account.city,
    province: account.province,
    postal_code: account.postalCode,
  };
}
