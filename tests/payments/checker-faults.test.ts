/**
 * Fault injection (issue "Bad input"): an RPC that errors, times out, answers garbage or
 * is not there leaves the network's cursor where it was, records the run as an error
 * (/api/status: checker `degraded`), still scans the healthy network, marks nothing
 * paid twice and loses nothing: the payment is matched once the RPC is back.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { eq } from "drizzle-orm";
import type { Address } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GET as statusGet } from "../../api/status.js";
import { resetConfig } from "../../lib/config.js";
import { getDb } from "../../lib/db/client.js";
import { chainCursors, chainTransfers, jobRuns, taskEvents, tasks } from "../../lib/db/schema/index.js";
import { checkPayments } from "../../lib/jobs/check-payments.js";
import { ACCOUNTS, type LocalChain, startLocalChain } from "../../scripts/dev/local-chain.js";
import { useTestDatabase } from "../helpers/db.js";
import { makeKey } from "../helpers/keys.js";
import { call } from "../helpers/request.js";
import { reviewTask, submitTask } from "../helpers/tasks.js";

useTestDatabase();

const WALLET = "0x00000000000000000000000000000000000b0b0b" as Address;
let l1: LocalChain;
let l2: LocalChain;
let l1Token: Address;
let l2Token: Address;
let admin: string;
let fault: Server;
let faultUrl: string;
let mode = "junk";
const saved = { ...process.env };
const hanging: ServerResponse[] = [];
/** CHECKER_RPC_TIMEOUT_MS here, ms: far above a local node's answer (tens of ms). */
const RPC_TIMEOUT_MS = 5000;

type RpcCall = { id: number; method: string; params: unknown[] };

async function forward(body: string): Promise<string> {
  const res = await fetch(l2.url, { method: "POST", headers: { "content-type": "application/json" }, body });
  return res.text();
}

/** The faulty RPC: behaviour chosen by `mode`. */
async function handle(req: IncomingMessage, res: ServerResponse) {
  let body = "";
  for await (const chunk of req) body += chunk;
  switch (mode) {
    case "junk":
      res.writeHead(200, { "content-type": "application/json" }).end("<html>502 Bad Gateway</html>");
      return;
    case "http500":
      res.writeHead(500, { "content-type": "text/plain" }).end("internal error");
      return;
    case "hang":
      hanging.push(res); // never answers
      return;
    case "bad-result": {
      const calls = JSON.parse(body) as RpcCall | RpcCall[];
      const answer = (c: RpcCall) => ({ jsonrpc: "2.0", id: c.id, result: "0xzz" });
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify(Array.isArray(calls) ? calls.map(answer) : answer(calls)));
      return;
    }
    case "bad-logs":
    case "foreign-log": {
      const calls = JSON.parse(body) as RpcCall | RpcCall[];
      const list = Array.isArray(calls) ? calls : [calls];
      const answers = await Promise.all(
        list.map(async (c) => {
          if (c.method !== "eth_getLogs") return JSON.parse(await forward(JSON.stringify(c)));
          const real = JSON.parse(await forward(JSON.stringify(c))) as { result: Record<string, unknown>[] };
          const logs = real.result.length ? real.result : [{ ...fakeLog }];
          const broken = logs.map((l) =>
            mode === "bad-logs"
              ? { ...l, topics: (l.topics as string[]).slice(0, 1) }
              : { ...l, address: "0x000000000000000000000000000000000000dead" },
          );
          return { jsonrpc: "2.0", id: c.id, result: broken };
        }),
      );
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify(Array.isArray(calls) ? answers : answers[0]));
      return;
    }
  }
}

const fakeLog = {
  address: "",
  topics: [
    "0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef",
    `0x${ACCOUNTS.payer.slice(2).padStart(64, "0")}`,
    `0x${WALLET.slice(2).padStart(64, "0")}`,
  ],
  data: `0x${"1".padStart(64, "0")}`,
  blockNumber: "0x1",
  blockHash: `0x${"ab".repeat(32)}`,
  transactionHash: `0x${"cd".repeat(32)}`,
  logIndex: "0x0",
  removed: false,
};

function useNetworks(baseUrl: string) {
  Object.assign(process.env, {
    ETHEREUM_RPC_URL: l1.url,
    ETHEREUM_CHAIN_ID: String(l1.chainId),
    ETHEREUM_USDC_CONTRACT: l1Token,
    ETHEREUM_WALLET: WALLET,
    ETHEREUM_CONFIRMATIONS: "1",
    ETHEREUM_START_BLOCK: "0",
    BASE_RPC_URL: baseUrl,
    BASE_CHAIN_ID: String(l2.chainId),
    BASE_USDC_CONTRACT: l2Token,
    BASE_WALLET: WALLET,
    BASE_CONFIRMATIONS: "1",
    BASE_START_BLOCK: "0",
    // Both networks' bound: the healthy node (in this process) must never reach it, even on a
    // loaded 2-core machine, and the hanging one is given up after it (one request, no retry).
    CHECKER_RPC_TIMEOUT_MS: String(RPC_TIMEOUT_MS),
  });
  resetConfig();
}

beforeAll(async () => {
  [l1, l2] = await Promise.all([startLocalChain(31337), startLocalChain(31338)]);
  [l1Token, l2Token] = await Promise.all([l1.deployToken(), l2.deployToken()]);
  fakeLog.address = l2Token;
  await l1.mint(l1Token, ACCOUNTS.payer, 10_000_000_000n);
  await l2.mint(l2Token, ACCOUNTS.payer, 10_000_000_000n);
  fault = createServer((req, res) => void handle(req, res));
  await new Promise<void>((resolve) => fault.listen(0, "127.0.0.1", resolve));
  faultUrl = `http://127.0.0.1:${(fault.address() as AddressInfo).port}`;
  useNetworks(l2.url);
  admin = await makeKey(["admin"]);
}, 60_000);

afterAll(async () => {
  for (const r of hanging) r.destroy();
  await new Promise<void>((resolve) => fault?.close(() => resolve()));
  for (const k of Object.keys(process.env)) if (!(k in saved)) delete process.env[k];
  Object.assign(process.env, saved);
  resetConfig();
  await Promise.all([l1?.close(), l2?.close()]);
});

async function approvedTask() {
  const { body } = await submitTask();
  await reviewTask(admin, { task_id: body.task_id, action: "approve" });
  const [row] = await (await getDb()).select().from(tasks).where(eq(tasks.id, body.task_id));
  return { id: row!.id, micro: row!.paymentUsdcMicro! };
}

async function baseCursor() {
  const [row] = await (await getDb()).select().from(chainCursors).where(eq(chainCursors.network, "base"));
  return row;
}

/** Switches the faulty RPC to `m`; returns its URL. */
function faultMode(m: string) {
  return () => {
    mode = m;
    return faultUrl;
  };
}

/** A port nothing listens on. */
async function closedPort(): Promise<string> {
  const s = createServer();
  await new Promise<void>((resolve) => s.listen(0, "127.0.0.1", resolve));
  const { port } = s.address() as AddressInfo;
  await new Promise<void>((resolve) => s.close(() => resolve()));
  return `http://127.0.0.1:${port}`;
}

describe("checker with a failing RPC", () => {
  it("establishes both cursors while the RPCs are healthy", async () => {
    const result = await checkPayments();
    expect(result.ok).toBe(true);
    expect(await baseCursor()).toBeDefined();
  });

  const faults: [string, () => Promise<string> | string][] = [
    ["answers non-JSON", faultMode("junk")],
    ["answers HTTP 500", faultMode("http500")],
    ["times out", faultMode("hang")],
    ["answers malformed results", faultMode("bad-result")],
    ["returns a Transfer log without its topics", faultMode("bad-logs")],
    ["returns a log of another contract", faultMode("foreign-log")],
    ["is not listening", closedPort],
  ];
  for (const [label, setup] of faults) {
    it(`keeps the cursor and reports degraded when the RPC ${label}; the other network still pays`, async () => {
      const onBase = await approvedTask();
      const onL1 = await approvedTask();
      await l2.transfer(l2Token, ACCOUNTS.payer, WALLET, onBase.micro);
      await l1.transfer(l1Token, ACCOUNTS.payer, WALLET, onL1.micro);
      const before = await baseCursor();
      useNetworks(await setup());

      const result = await checkPayments();
      expect(result.ok).toBe(false);
      expect(result.error).toMatch(/^base: /);
      expect(result.details).toMatchObject({ networks_scanned: 1, matched: 1 });
      expect(await baseCursor()).toEqual(before);
      const db = await getDb();
      const [run] = await db.select().from(jobRuns).where(eq(jobRuns.job, "check-payments"));
      expect(run!.lastStatus).toBe("error");
      expect(run!.details).toMatchObject({ errors: [{ network: "base" }] });
      const { body } = await call(statusGet, "/api/status");
      expect(body.status).toBe("degraded");
      expect(body.services.payment_checker.status).toBe("degraded");
      expect(typeof body.services.payment_checker.pending_checked).toBe("number");
      const [l1Task] = await db.select().from(tasks).where(eq(tasks.id, onL1.id));
      expect(l1Task!.status).toBe("paid");
      const [baseTask] = await db.select().from(tasks).where(eq(tasks.id, onBase.id));
      expect(baseTask!.status).toBe("accepted_pending_payment");
      expect(
        (await db.select().from(chainTransfers)).filter((t) => t.network === "base" && t.amountMicro === 1n),
      ).toHaveLength(0);

      // The RPC is back: the payment made during the outage is found, once.
      useNetworks(l2.url);
      const healed = await checkPayments();
      expect(healed.ok).toBe(true);
      expect(healed.details).toMatchObject({ matched: 1 });
      const [paid] = await db.select().from(tasks).where(eq(tasks.id, onBase.id));
      expect(paid).toMatchObject({ status: "paid", paymentNetwork: "base" });
      const events = await db.select().from(taskEvents).where(eq(taskEvents.taskId, onBase.id));
      expect(events.filter((e) => e.type === "task.paid")).toHaveLength(1);
      expect((await checkPayments()).details).toMatchObject({ matched: 0 });
      // Two chains, three checker runs, one of them waiting out the hanging RPC's 5 s bound.
    }, 60_000);
  }

  it("refuses a node that serves another chain than configured", async () => {
    const before = await baseCursor();
    Object.assign(process.env, { BASE_RPC_URL: l1.url });
    resetConfig();
    const result = await checkPayments();
    expect(result.ok).toBe(false);
    expect(result.error).toContain("serves chain 31337, configured 31338");
    expect(await baseCursor()).toEqual(before);
    useNetworks(l2.url);
  });
});
