/**
 * The policy screen as a submission step: screens the free-text fields, refuses (after counting
 * the refusal) or returns the record to keep with the task.
 */
import type { TaskPolicyRecord } from "../db/schema/index.js";
import { DomainError } from "../errors.js";
import { countRefusal } from "./counters.js";
import { type PolicyScreen, screenSubmission } from "./screen.js";

/** The human-readable explanation of a refusal, naming the reason codes. */
export function refusalMessage(screen: PolicyScreen): string {
  return (
    `This task cannot be accepted: it matches the service's policy on ${screen.reason_codes.join(", ")} ` +
    `(rules ${screen.version}). Operators do not follow, watch or confront people, enter places without ` +
    "permission, pose as someone else, carry illegal goods or weapons, take dangerous risks, intrude on " +
    "privacy, or give medical or legal care in person. Reword the task if it was misread; nothing was stored."
  );
}

/**
 * Screens `texts` (task description, special instructions, preferred output) of a submission.
 * @returns the policy record to store with the task (`allow` or `review`)
 * @throws DomainError POLICY_VIOLATION (422; `reason_codes`, `policy_version` and the matched rule
 *   ids in the error) when a refusing rule matched; the refusal is counted first (lib/policy/counters.ts)
 */
export async function enforcePolicy(
  texts: readonly (string | null | undefined)[],
  now = new Date(),
): Promise<TaskPolicyRecord> {
  const screen = screenSubmission(texts);
  if (screen.outcome === "refuse") {
    await countRefusal(screen.version, screen.reason_codes, now);
    throw new DomainError("POLICY_VIOLATION", refusalMessage(screen), {
      field: "task_description",
      extra: {
        reason_codes: screen.reason_codes,
        policy_version: screen.version,
        rules: screen.matches.filter((m) => m.outcome === "refuse").map((m) => m.rule_id),
      },
    });
  }
  return {
    version: screen.version,
    outcome: screen.outcome,
    reason_codes: screen.reason_codes,
    matches: screen.matches,
  };
}
