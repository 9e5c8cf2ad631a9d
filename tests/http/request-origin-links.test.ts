/**
 * Links built from the address the service was reached at when no PUBLIC_BASE_URL is configured
 * (issue 44 item 7; lib/config/request-origin.ts; docs/decisions.md 47): an invitation e-mailed
 * while answering a request to 127.0.0.1:PORT links to 127.0.0.1:PORT, not localhost; a Host the
 * service does not trust (not loopback, not MCP_ALLOWED_HOSTS) is ignored; PUBLIC_BASE_URL wins.
 * (The local host builds a request's URL from its Host header; tests/oauth/oauth-loopback-issuer.test.ts
 * shows the same rule for the OAuth issuer over a real socket.)
 * Through the real handler and the e-mail row it queues.
 */
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { POST as staffPost } from "../../api/staff.js";
import { getConfig, resetConfig } from "../../lib/config.js";
import { getDb } from "../../lib/db/client.js";
import { emails } from "../../lib/db/schema/index.js";
import { useTestDatabase } from "../helpers/db.js";
import { envOverrides } from "../helpers/env.js";
import { makeKey } from "../helpers/keys.js";
import { call } from "../helpers/request.js";

useTestDatabase();

const { set: setEnv, restore: restoreEnv } = envOverrides(() => resetConfig());
afterAll(() => restoreEnv());

let admin: string;
let n = 0;
beforeAll(async () => {
  setEnv({ PUBLIC_BASE_URL: undefined, MCP_ALLOWED_HOSTS: "ops.example.net" });
  admin = await makeKey(["admin"]);
});

/** Invites a field person through `origin` (with `host` as the Host header when given); the e-mail's text. */
async function invitationText(origin: string, host?: string): Promise<string> {
  const email = `origin.${++n}.${Date.now()}@staff.example.com`;
  const res = await call(staffPost, `${origin}/api/staff`, {
    method: "POST",
    headers: { "x-api-key": admin, ...(host ? { host } : {}) },
    json: { action: "invite", email, role: "field", display_name: `Origin ${n}` },
  });
  expect(res.res.status, JSON.stringify(res.body)).toBe(200);
  const [row] = await (await getDb()).select().from(emails).where(eq(emails.toAddress, email));
  return row!.textBody;
}

describe("links without PUBLIC_BASE_URL", () => {
  it("use the loopback address the request reached (127.0.0.1:port, [::1])", async () => {
    expect(await invitationText("http://127.0.0.1:4321")).toContain(
      "http://127.0.0.1:4321/field/#/accept?code=inv_",
    );
    expect(await invitationText("http://[::1]:4321")).toContain("http://[::1]:4321/field/#/accept?code=inv_");
  });

  it("use a host listed in MCP_ALLOWED_HOSTS", async () => {
    expect(await invitationText("https://ops.example.net")).toContain(
      "https://ops.example.net/field/#/accept",
    );
  });

  it("ignore a Host the service does not trust: the default localhost link", async () => {
    const fallback = `http://localhost:${getConfig().PORT}/field/#/accept`;
    expect(await invitationText("http://evil.example.com")).toContain(fallback);
  });

  it("PUBLIC_BASE_URL, when set, wins over the request's address", async () => {
    setEnv({ PUBLIC_BASE_URL: "https://tasks.example.org" });
    try {
      expect(await invitationText("http://127.0.0.1:4321")).toContain(
        "https://tasks.example.org/field/#/accept",
      );
    } finally {
      setEnv({ PUBLIC_BASE_URL: undefined });
    }
  });
});
