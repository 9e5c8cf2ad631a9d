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
 * sequence; replay with MODEL_SEED=<seed> MODEL_PATH=<path> npx vitest run tests/model, or
 * `npm run test:model -- --seed <seed> --path <path>`. Longer: `npm run test:model -- --runs N`.
 */
import { beforeAll, describe, it } from "vitest";
import { useTestDatabase } from "../helpers/db.js";
import { makeKey } from "../helpers/keys.js";
import { modelRunOptions, runMoneyModel } from "./money-model.js";

useTestDatabase();

let admin: string;
beforeAll(async () => {
  admin = await makeKey(["admin"], "model-ops@example.com");
});

describe("the money under random sequences of every path (model-based)", () => {
  const options = modelRunOptions();
  it(`keeps every invariant over ${options.numRuns} runs of up to ${options.maxCommands} commands`, {
    timeout: Number(process.env.MODEL_TIMEOUT_MS ?? 600_000),
  }, async () => {
    await runMoneyModel(admin, options);
  });
});
