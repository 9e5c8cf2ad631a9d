/**
 * `task_card_refresh`, the task card's own helper (MCP Apps `visibility: ["app"]`: the host lets
 * the card call it and never offers it to the model; docs/mcp.md "In the conversation"). One call
 * gives the card what it redraws on every poll: the task's status exactly as `check_task_status`
 * answers it (same credentials, same access rule, a sandbox task advances one step), and the
 * result of verifying the task's signed receipt against our JWK Set (docs/receipts.md), done here
 * rather than in the app (docs/decisions.md 43), and the pay page of the caller's real task
 * awaiting payment (the card's Pay action opens it through the host). For a task still under way
 * (paid, dispatched, on site) whose content the caller may see, `task.proof_files` lists the files
 * a field person has uploaded so far (with their capture metadata), so the card shows the photos
 * that exist and the rest as arriving (issue 43; check_task_status lists them once completed).
 */
import { z } from "zod";
import { TASK_TOOLS } from "../task-tools.js";
import { type ToolDefinition, toolResult, writeTool } from "../tool-kit.js";

/** The receipt check the card shows. */
export const receiptCheckSchema = z.object({
  valid: z.boolean().meta({ description: "The JWS verified against /.well-known/jwks.json (EdDSA)." }),
  kid: z.string().nullable().meta({ description: "The key that signed it." }),
  status: z.string().nullable().meta({ description: "The receipt's status claim (completed or failed)." }),
  sandbox: z
    .boolean()
    .nullable()
    .meta({ description: "A sandbox receipt proves nothing happened in the world." }),
  issued_at: z.string().nullable().meta({ description: "The receipt's issue time (ISO 8601)." }),
  proof_matches: z
    .boolean()
    .nullable()
    .meta({ description: "The receipt names exactly the proof files listed (count, order, SHA-256)." }),
  error: z.string().nullable().meta({ description: "Why it did not verify." }),
});

const checkStatus = TASK_TOOLS.check_task_status!;

/** Statuses in which proof files may already be attached before completion (lib/field/field-proof.ts). */
const UNDER_WAY = new Set(["paid", "dispatched", "on_site"]);

/**
 * Verifies the compact JWS `jws` against our current JWK Set and compares its proof list with
 * `proof` (the status' files).
 */
export async function checkReceipt(
  jws: string,
  proof: readonly { sha256: string }[],
): Promise<z.infer<typeof receiptCheckSchema>> {
  const [{ verifyReceipt }, { receiptJwks }] = await Promise.all([
    import("../../receipts/receipt.js"),
    import("../../receipts/keys.js"),
  ]);
  try {
    const { claims, kid } = await verifyReceipt(jws, await receiptJwks());
    const listed = claims.proof.map((p) => p.sha256);
    return {
      valid: true,
      kid,
      status: claims.status,
      sandbox: claims.sandbox,
      issued_at: claims.issued_at,
      proof_matches: listed.length === proof.length && listed.every((h, i) => h === proof[i]!.sha256),
      error: null,
    };
  } catch (error) {
    return {
      valid: false,
      kid: null,
      status: null,
      sandbox: null,
      issued_at: null,
      proof_matches: null,
      error: error instanceof Error ? error.message : String(error),
    };
  }
}

/** The pay page of the caller's real task awaiting payment, else null. */
async function payUrlOf(view: { task_id: string; owned_by_caller: boolean }): Promise<string | null> {
  if (!view.owned_by_caller) return null;
  const [{ getTaskOrThrow }, { awaitsPayment }] = await Promise.all([
    import("../../tasks/state/apply-transition.js"),
    import("../../tasks/state/transitions.js"),
  ]);
  const task = await getTaskOrThrow(view.task_id);
  if (task.sandbox || !awaitsPayment(task)) return null;
  const { payPageUrl } = await import("../../payments/pay-link.js");
  return (await payPageUrl(task)).url;
}

/** The tool (app-only: `_meta.ui.visibility` is set by lib/mcp/app/task-card.ts `uiToolMeta`). */
export const TASK_CARD_REFRESH_TOOL: ToolDefinition = {
  name: "task_card_refresh",
  scope: "audit_only",
  title: "Refresh the task card",
  description:
    "The task card's own refresh (MCP Apps, app-only): the task's status as check_task_status answers it, " +
    "and its signed receipt verified against the service's JWK Set. Same credentials as check_task_status.",
  input: checkStatus.input,
  output: z.object({
    task: checkStatus.output,
    receipt_check: receiptCheckSchema.nullable(),
    pay_url: z.string().nullable().meta({
      description:
        "The owner's real task awaiting payment: its pay page (a fresh pay token in the fragment).",
    }),
  }),
  // A sandbox task advances one step per read, as with check_task_status.
  annotations: writeTool("Refresh the task card"),
  async run(args, ctx) {
    const result = await checkStatus.run(args, ctx);
    if (result.isError) return result;
    const task = result.structuredContent as {
      task_id: string;
      status: string;
      owned_by_caller: boolean;
      receipt?: string;
      proof_files?: { sha256: string }[];
    };
    if (task.owned_by_caller && UNDER_WAY.has(task.status) && !task.proof_files) {
      const { attachedProofLinks } = await import("../task-results.js");
      const links = await attachedProofLinks(task.task_id);
      if (links.length > 0) task.proof_files = links;
    }
    const receiptCheck = task.receipt ? await checkReceipt(task.receipt, task.proof_files ?? []) : null;
    return toolResult({ task, receipt_check: receiptCheck, pay_url: await payUrlOf(task) });
  },
};
