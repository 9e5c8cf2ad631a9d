/**
 * Compiles contracts/TestUSDC.sol with the npm `solc` package (0.8.28, offline: no
 * compiler download) and writes contracts/TestUSDC.json `{ contractName, compiler,
 * sourceSha256, abi, bytecode }`, the artifact the payment tests and the checker
 * benchmark deploy to their local Hardhat chain.
 *
 * Run `npx tsx scripts/compile-test-token.ts` after editing the source;
 * tests/payments/test-token.test.ts fails when the artifact no longer matches it.
 */
import { createHash } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
/** The Solidity source of the test token. */
export const TOKEN_SOURCE = path.join(root, "contracts", "TestUSDC.sol");
/** The committed compiled artifact. */
export const TOKEN_ARTIFACT = path.join(root, "contracts", "TestUSDC.json");

/** Shape of contracts/TestUSDC.json. */
export interface TokenArtifact {
  contractName: "TestUSDC";
  compiler: string;
  /** SHA-256 hex of the source it was compiled from. */
  sourceSha256: string;
  abi: unknown[];
  /** 0x-prefixed creation bytecode. */
  bytecode: `0x${string}`;
}

interface SolcOutput {
  errors?: { severity: string; formattedMessage: string }[];
  contracts: Record<string, Record<string, { abi: unknown[]; evm: { bytecode: { object: string } } }>>;
}

/**
 * Compiles the token source (deterministic settings: optimizer 200 runs, no metadata hash).
 * @throws Error with solc's messages when compilation fails.
 */
export function compileTestToken(): TokenArtifact {
  const source = readFileSync(TOKEN_SOURCE, "utf8");
  const solc = createRequire(import.meta.url)("solc") as {
    compile(input: string): string;
    version(): string;
  };
  const input = {
    language: "Solidity",
    sources: { "TestUSDC.sol": { content: source } },
    settings: {
      optimizer: { enabled: true, runs: 200 },
      evmVersion: "cancun",
      metadata: { bytecodeHash: "none", appendCBOR: false },
      outputSelection: { "*": { "*": ["abi", "evm.bytecode.object"] } },
    },
  };
  const output = JSON.parse(solc.compile(JSON.stringify(input))) as SolcOutput;
  const errors = (output.errors ?? []).filter((e) => e.severity === "error");
  if (errors.length) throw new Error(errors.map((e) => e.formattedMessage).join("\n"));
  const contract = output.contracts["TestUSDC.sol"]?.TestUSDC;
  if (!contract) throw new Error("solc produced no TestUSDC contract");
  return {
    contractName: "TestUSDC",
    compiler: `solc ${solc.version()}`,
    sourceSha256: createHash("sha256").update(source).digest("hex"),
    abi: contract.abi,
    bytecode: `0x${contract.evm.bytecode.object}`,
  };
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const artifact = compileTestToken();
  writeFileSync(TOKEN_ARTIFACT, `${JSON.stringify(artifact, null, 2)}\n`);
  console.log(`wrote ${path.relative(root, TOKEN_ARTIFACT)} (${(artifact.bytecode.length - 2) / 2} bytes)`);
}
