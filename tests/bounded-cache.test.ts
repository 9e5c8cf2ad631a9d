/** lib/bounded-cache.ts: a Map that forgets everything once full. */
import { describe, expect, it } from "vitest";
import { BoundedCache } from "../lib/bounded-cache.js";

describe("BoundedCache", () => {
  it("holds at most max entries, forgetting all of them before adding a new key when full", () => {
    const cache = new BoundedCache<string, number>(2);
    cache.set("a", 1).set("b", 2);
    expect([...cache.keys()]).toEqual(["a", "b"]);
    cache.set("b", 3); // an existing key is replaced, nothing forgotten
    expect([...cache.entries()]).toEqual([
      ["a", 1],
      ["b", 3],
    ]);
    cache.set("c", 4);
    expect([...cache.entries()]).toEqual([["c", 4]]);
  });
});
