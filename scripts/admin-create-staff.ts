/**
 * `npm run admin:create-staff -- --email E --role owner [--name N] [--init]`: invites a staff
 * member from the server's host and prints the invitation code and link once (the invitation
 * e-mail is queued too). The person opens the link (/operator/#/accept?code=…), chooses a display
 * name and a password, adds the TOTP secret to an authenticator app and is signed in.
 *
 * Like `npm run admin:create-key`: through the running server's loopback control channel
 * (scripts/local-control.ts) while `npm start` / `npm run dev` runs on the same DATA_DIR,
 * otherwise on the configured database itself, never creating an embedded one without `--init`.
 */
import { existsSync } from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { getConfig } from "../lib/config.js";
import { closeDatabase, selectDriver } from "../lib/db/client.js";
import { inviteFromHost } from "../lib/staff/bootstrap.js";
import { describeDatabase, hostStaffBody, readControlFile } from "./local-control.js";
import { loadEnvFile } from "./serve.js";

const USAGE =
  "Usage: npm run admin:create-staff -- --email E --role owner|reviewer|dispatcher|field|finance [--name N] [--init]";

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      email: { type: "string" },
      role: { type: "string" },
      name: { type: "string" },
      init: { type: "boolean" },
    },
  });
  const parsed = hostStaffBody.safeParse({
    email: values.email,
    role: values.role,
    display_name: values.name ?? values.email?.split("@")[0],
  });
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${String(i.path[0])}: ${i.message}`).join("; ");
    throw new Error(`${USAGE}. ${problems}`);
  }
  loadEnvFile();
  const config = getConfig();
  const running = readControlFile(config);
  let invited: Record<string, unknown>;
  let where: string;
  if (running) {
    const res = await fetch(`${running.url}/_local/staff`, {
      method: "POST",
      headers: { authorization: `Bearer ${running.token}`, "content-type": "application/json" },
      body: JSON.stringify(parsed.data),
    });
    const body = (await res.json()) as Record<string, unknown>;
    if (res.status !== 201) throw new Error(`The running server refused: ${JSON.stringify(body)}`);
    const { database, ...rest } = body;
    invited = rest;
    where = `through the running server (pid ${running.pid}) in ${String(database)}`;
  } else {
    if (selectDriver(config) === "pglite") {
      if (config.DATA_DIR === "memory://") {
        throw new Error("DATA_DIR=memory://: an invitation created here would vanish with this command");
      }
      const dir = path.resolve(config.DATA_DIR, "pglite");
      if (!existsSync(dir) && !values.init) {
        throw new Error(
          `No database in ${dir}: refusing to create one. Point DATA_DIR (or DATABASE_URL) at the server's ` +
            "database, start the server once, or pass --init to create it here.",
        );
      }
    }
    invited = { ...(await inviteFromHost({ ...parsed.data, displayName: parsed.data.display_name })) };
    where = `in ${describeDatabase(config)}`;
  }
  console.log(JSON.stringify(invited, null, 2));
  console.error(`Invited ${where}. The code is shown only once and expires in 48 hours.`);
  console.error(
    `Open the link to choose a password and enrol an authenticator app: ${String(invited.invitation_link)}`,
  );
}

main()
  .catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exitCode = 1;
  })
  .finally(() => closeDatabase());
