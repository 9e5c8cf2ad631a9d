/**
 * The local control channel and the development mail viewer (scripts/local-control.ts), in
 * process on a test database: loopback + token only for /_local, loopback + development only for
 * /dev/mail, full text of sent messages (one-time codes the row loses), clickable links, and
 * attachments served from proof_files.
 */
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getDb } from "../../lib/db/client.js";
import { emails, proofFiles } from "../../lib/db/schema/index.js";
import { SOCKET_IP_HEADER } from "../../lib/http/client-ip.js";
import { sendQueuedEmails } from "../../lib/mail/send-queued-emails.js";
import { type LocalControl, readControlFile, startLocalControl } from "../../scripts/local-control.js";
import { useTestDatabase } from "../helpers/db.js";
import { submitTask } from "../helpers/tasks.js";

useTestDatabase();

const code = `vfy_${"A".repeat(40)}`;
const png = readFileSync(new URL("../../examples/sample-photo.png", import.meta.url));

function request(
  pathname: string,
  init: { ip?: string; host?: string; headers?: Record<string, string>; method?: string; body?: string } = {},
) {
  return new Request(`http://127.0.0.1:3000${pathname}`, {
    method: init.method ?? "GET",
    headers: {
      [SOCKET_IP_HEADER]: init.ip ?? "127.0.0.1",
      host: init.host ?? "127.0.0.1:3000",
      ...init.headers,
    },
    body: init.body,
  });
}

let dev: LocalControl;
let plain: LocalControl;

beforeAll(async () => {
  dev = startLocalControl({ dev: true });
  plain = startLocalControl({ dev: false });
  const { body } = await submitTask();
  const db = await getDb();
  await db.insert(proofFiles).values({
    id: "pf_mailviewer",
    taskId: body.task_id,
    filename: "front.png",
    mimeType: "image/png",
    sizeBytes: png.length,
    sha256: createHash("sha256").update(png).digest("hex"),
    content: png,
  });
  await db.insert(emails).values([
    {
      id: "em_code",
      toAddress: "client@example.com",
      subject: "Confirmez votre adresse courriel",
      textBody: `Ouvrez http://localhost:3000/client/#/verify?token=${code} pour confirmer.`,
      lang: "fr",
    },
    {
      id: "em_files",
      toAddress: "client@example.com",
      subject: "Task completed",
      textBody: "Your proof is attached.",
      lang: "en",
      attachments: [{ proof_file_id: "pf_mailviewer", filename: "front.png", content_type: "image/png" }],
    },
  ]);
  await sendQueuedEmails();
});

afterAll(() => {
  dev.close();
  plain.close();
});

describe("/dev/mail", () => {
  it("shows each message in full, the code the row lost included, with links and attachments", async () => {
    const db = await getDb();
    const [row] = await db.select().from(emails).where(eq(emails.id, "em_code"));
    expect(row!.textBody).not.toContain(code); // redacted in the database once sent
    const res = (await dev.intercept(request("/dev/mail")))!;
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toContain(`<a href="http://localhost:3000/client/#/verify?token=${code}">`);
    expect(html).toContain('lang="fr"');
    expect(html).toContain('lang="en"');
    expect(html).toContain('<a href="/dev/mail/attachments/pf_mailviewer">front.png</a>');
    const file = (await dev.intercept(request("/dev/mail/attachments/pf_mailviewer")))!;
    expect(file.headers.get("content-type")).toBe("image/png");
    expect(Buffer.from(await file.arrayBuffer()).equals(png)).toBe(true);
  });

  it("is not there outside development, from another address, or under another Host", async () => {
    expect(await plain.intercept(request("/dev/mail"))).toBeUndefined();
    expect(await dev.intercept(request("/dev/mail", { ip: "192.168.1.20" }))).toBeUndefined();
    expect(await dev.intercept(request("/dev/mail", { host: "evil.example" }))).toBeUndefined();
  });
});

describe("/_local control channel", () => {
  it("answers only loopback requests carrying the token of the control file", async () => {
    dev.attach({ url: "http://127.0.0.1:3000", invoke: async () => new Response("{}") });
    // With DATA_DIR=memory:// (the tests) no control file is written. The accepted path, with the
    // token of the file, is exercised by tests/integration/npm-dev.test.ts (admin:create-key).
    expect(readControlFile()).toBeUndefined();
    const body = JSON.stringify({ name: "n", contact: "a@example.com", scopes: ["admin"] });
    expect(await dev.intercept(request("/_local/admin-keys", { method: "POST", body }))).toBeUndefined();
    expect(
      await dev.intercept(
        request("/_local/admin-keys", { method: "POST", body, headers: { authorization: "Bearer wrong" } }),
      ),
    ).toBeUndefined();
  });
});
