/** The block range one checker pass scans (lib/payments/scan-network.ts `scanRange`). */
import { describe, expect, it } from "vitest";
import { scanRange } from "../../lib/payments/scan-network.js";

const limits = { maxBlocksPerRun: 100, rescanBlocks: 5 };

describe("scanRange", () => {
  it("re-scans the window below the cursor and stops at the confirmed head", () => {
    expect(scanRange(50n, 1000n, undefined, limits)).toEqual({ from: 46n, to: 150n });
    expect(scanRange(50n, 60n, undefined, limits)).toEqual({ from: 46n, to: 60n });
  });

  it("never goes below block 0 after a cursor near the start", () => {
    expect(scanRange(2n, 1000n, undefined, limits)).toEqual({ from: 0n, to: 102n });
  });

  it("starts a network without a cursor at its start block, else rescanBlocks below the head", () => {
    expect(scanRange(undefined, 1000n, 900, limits)).toEqual({ from: 900n, to: 999n });
    expect(scanRange(undefined, 1000n, undefined, limits)).toEqual({ from: 995n, to: 1000n });
    expect(scanRange(undefined, 3n, undefined, limits)).toEqual({ from: 0n, to: 3n });
  });

  it("is null when the head is below the range", () => {
    expect(scanRange(undefined, 1000n, 2000, limits)).toBeNull();
  });
});
