/**
 * The audit row of a staff sign-in (issue 44 item 3; docs/staff-and-audit.md "Actions"):
 * `staff.sign_in` with the method used, attributed to the member who signed in (the request itself
 * had no credential yet), written in the transaction that opens the session.
 */

import { currentActor, runAsActor } from "../db/actor.js";
import { recordAudit } from "../db/audit.js";
import type { Tx } from "../db/client.js";
import type { Role } from "../db/schema/enums.js";

/** How a staff member signed in: a passkey, password + TOTP, or password + a recovery code. */
export type SignInMethod = "passkey" | "password_totp" | "password_recovery_code";

/**
 * Records the sign-in of `staff` with `method` and the session it opened (`sessionId`), in `tx`.
 * `details`: `method`, `session_id` and, for a passkey, its `passkey_id`.
 */
export async function recordSignIn(
  tx: Tx,
  staff: { id: string; role: Role },
  method: SignInMethod,
  sessionId: string,
  extra: Record<string, unknown> = {},
): Promise<void> {
  await runAsActor({ kind: "staff", id: staff.id, role: staff.role }, currentActor().requestId, () =>
    recordAudit(tx, {
      action: "staff.sign_in",
      targetKind: "staff",
      targetId: staff.id,
      details: { method, session_id: sessionId, ...extra },
    }),
  );
}
