/**
 * Marks e-mail addresses as verified (a client account whose `email_verified_at` is set), so
 * that task e-mails to them carry the full text (lib/mail/unverified-recipients.ts).
 */
import { sql } from "drizzle-orm";
import { getDb } from "../../lib/db/client.js";
import { clientAccounts } from "../../lib/db/schema/index.js";
import { prefixedId } from "../../lib/ids.js";

/** Creates (or updates) a verified client account for each address. */
export async function verifyAddresses(...addresses: string[]): Promise<void> {
  const db = await getDb();
  for (const address of addresses) {
    const email = address.toLowerCase();
    await db
      .insert(clientAccounts)
      .values({
        id: prefixedId("acct"),
        orgId: `org-${email.replace(/[^a-z0-9]/g, "-")}`,
        contactName: "Verified Contact",
        email,
        emailVerifiedAt: new Date(),
      })
      .onConflictDoUpdate({ target: clientAccounts.email, set: { emailVerifiedAt: sql`now()` } });
  }
}
