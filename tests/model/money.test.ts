/**
 * The model-based test of the money (issue 42 item 3; docs/payments.md "The model test of the
 * money"): random sequences of deposits, adjustments, submissions, approvals (with the prepaid
 * charge), counter-offers, USDC, x402 and out-of-band payments, cancellations before and after
 * payment, dispatch, completion, failure, disputes and their four resolutions, refund settlements
 * (repeated, retried), the SLA credit job and Law 25 erasure, each through the real handler, with
 * the invariants of tests/model/money-model.ts checked after every command. PGlite by default,
 * PostgreSQL when TEST_DATABASE_URL is set.
 *
 * Seeded and reproducible: on failure fast-check prints the seed, the path and the shrunk
 * sequence with its replayPath; replay with MODEL_SEED=<seed> MODEL_PATH=<path>
 * MODEL_REPLAY_PATH=<replayPath> npx vitest run tests/model -t "<property>:", or
 * `npm run test:model -- --property all|recourse --seed <seed> --path <path> --replay-path <r>`. Longer: `npm run test:model -- --runs N`.
 *
 * What it found on the code before the running total (ac2d550, the parent of f1a123b; the test copied
 * there, with the settlement helper of tests/helpers/tasks.ts and without the running-total check
 * the old code has no table for):
 * - the over-refund, "granted more than paid": seed -61013655, path
 *   54:7:9:8:8:8:8:8:10:8:11:9:10:11 (MODEL_RUNS=60 MODEL_COMMANDS=30), shrunk to
 *   completedTask(owner account 0, 0.01, usdc), dispute, slaCredit(120 h late: 0.01 owed),
 *   settle(denied), resolve(full_refund): the full refund granted 0.01 again, 0.02 against 0.01
 *   paid (the denied settlement had overwritten the last-value refund field the cap read).
 * - a settlement checked against the price, not what is left: seed 99, path
 *   43:9:8:12:9:9:9:10:8:8:8:9:9:9:10:9:9:12:10:10:3:3:4:3:3:3:3:3:3:3:3:3:3:3:3:4
 *   (MODEL_RUNS=60 MODEL_COMMANDS=20), shrunk to completedTask(owner account 0, 0.05, usdc),
 *   slaCredit(24 h late), settle(refunded 379.67): refused without the cumulative max_amount_cad.
 * - the second settlement's 500 (the refund-settled e-mail's dedupe key was per task, so a task's
 *   second settlement violated emails_dedupe_key_uq and rolled back): found by the second
 *   property, the recourse subset (USDC or out-of-band tasks, disputes and the earlier-rule
 *   dispute row, the four resolutions with small amounts, settlements, the SLA credit job, a
 *   grant settled at once): seed 1947528974, path 0:0:0:4:3:3:4, replayPath AAABCL:q
 *   (MODEL_RUNS=30 MODEL_COMMANDS=15, the first run), shrunk to
 *   [completedTask(usdc key, 1.01, usdc)], slaCredit(24 h late)+settle(refunded),
 *   dispute, resolve(partial_refund 0.01)+settle(refunded): the second settlement answered
 *   500 INTERNAL. The property over every path stops at the over-refund first; the recourse one
 *   settles each grant at once, so the last-value cap holds until a second settlement.
 *   Replay: `npm run test:model -- --property recourse --seed 1947528974 --path 0:0:0:4:3:3:4
 *   --replay-path AAABCL:q`. tests/tasks/refund-total.test.ts keeps it as a plain regression test.
 *
 * Default run: the property over every path (6 runs of up to 25 commands) and the recourse
 * subset (5 runs of up to 15 commands, one or two completed tasks first).
 */
import { beforeAll, describe, it } from "vitest";
import { useTestDatabase } from "../helpers/db.js";
import { makeKey } from "../helpers/keys.js";
import { modelRunOptions, recourseArbitraries, recoursePrelude, runMoneyModel } from "./money-model.js";

useTestDatabase();

let admin: string;
beforeAll(async () => {
  admin = await makeKey(["admin"], "model-ops@example.com");
});

describe("the money under random sequences of every path (model-based)", () => {
  const options = modelRunOptions();
  it(`all paths: keeps every invariant over ${options.numRuns} runs of up to ${options.maxCommands} commands`, {
    timeout: Number(process.env.MODEL_TIMEOUT_MS ?? 600_000),
  }, async () => {
    await runMoneyModel(admin, options);
  });
  // The recourse subset: several refunds and settlements of one task in a few commands.
  const recourse = modelRunOptions(process.env, { runs: 5, commands: 15 });
  it(`recourse: keeps every invariant over ${recourse.numRuns} runs of up to ${recourse.maxCommands} commands`, {
    timeout: Number(process.env.MODEL_TIMEOUT_MS ?? 600_000),
  }, async () => {
    await runMoneyModel(admin, recourse, recourseArbitraries(), recoursePrelude);
  });
});
