/**
 * The data migration drizzle/0009_link_verified_keys.sql, run on rows made with the current schema:
 * keys whose contact is a verified account's e-mail stay linked (admin keys excepted), every other
 * key stays unlinked, sent e-mails lose their one-time codes while queued ones keep them, and the
 * dedupe keys of code e-mails no longer hold characters of the code.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { eq, sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { getDb } from "../../lib/db/client.js";
import { apiKeys, clientAccounts, emails } from "../../lib/db/schema/index.js";
import { createApiKey } from "../../lib/keys/create-api-key.js";
import { useTestDatabase } from "../helpers/db.js";
import { ROOT } from "../helpers/host.js";

useTestDatabase();

const MIGRATION = path.join(ROOT, "drizzle/0009_link_verified_keys.sql");

async function account(id: string, email: string, verified: boolean) {
  const db = await getDb();
  await db.insert(clientAccounts).values({
    id,
    orgId: `org_${id}`,
    contactName: "Someone",
    email,
    emailVerifiedAt: verified ? new Date() : null,
  });
}

describe("0009_link_verified_keys", () => {
  it("links keys to verified accounts of their contact only, and blanks codes of sent e-mails", async () => {
    await account("acct_verified", "verified@example.com", true);
    await account("acct_unverified", "unverified@example.com", false);
    const key = (contact: string, scopes?: ("admin" | "task_create")[]) =>
      createApiKey({ name: "k", contact, scopes, trusted: true });
    const onVerified = await key("verified@example.com");
    const adminOnVerified = await key("verified@example.com", ["admin"]);
    const onUnverified = await key("unverified@example.com");
    const stranger = await key("nobody@example.com");
    const code = `vfy_${"a1B2".repeat(10)}`;
    const db = await getDb();
    await db.insert(emails).values([
      {
        id: "em_sent",
        toAddress: "verified@example.com",
        subject: "s",
        textBody: `code ${code} end`,
        status: "sent",
      },
      { id: "em_queued", toAddress: "verified@example.com", subject: "s", textBody: `code ${code} end` },
      {
        id: "em_old_key",
        toAddress: "verified@example.com",
        subject: "s",
        textBody: "t",
        template: "account-verify-email",
        dedupeKey: `verify-email:${code.slice(-12)}:acct_verified`,
      },
    ]);

    for (const statement of readFileSync(MIGRATION, "utf8").split("--> statement-breakpoint")) {
      await db.execute(sql.raw(statement));
    }

    const links = Object.fromEntries(
      (await db.select({ id: apiKeys.id, accountId: apiKeys.accountId }).from(apiKeys)).map((r) => [
        r.id,
        r.accountId,
      ]),
    );
    expect(links[onVerified.key_id]).toBe("acct_verified");
    expect(links[adminOnVerified.key_id]).toBeNull();
    expect(links[onUnverified.key_id]).toBeNull();
    expect(links[stranger.key_id]).toBeNull();
    const [sent] = await db.select().from(emails).where(eq(emails.id, "em_sent"));
    expect(sent!.textBody).toBe("code vfy_[removed after sending] end");
    const [queued] = await db.select().from(emails).where(eq(emails.id, "em_queued"));
    expect(queued!.textBody).toContain(code);
    const [old] = await db.select().from(emails).where(eq(emails.id, "em_old_key"));
    expect(old!.dedupeKey).toMatch(/^verify-email:[0-9a-f]{16}:acct_verified$/);
    expect(old!.dedupeKey).not.toContain(code.slice(-12));
  });
});
