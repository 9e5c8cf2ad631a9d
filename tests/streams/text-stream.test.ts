/**
 * lib/text-stream.ts, the streamed JSON answers' pieces (issue 32 item 4): pieces are gathered into
 * chunks and decode to the same text; a JSON document with a streamed array parses, its tail after
 * the array; a source failing before its first piece fails `primedTextStream` itself (so the
 * wrapper can answer in the error envelope), one failing later errors the stream (a truncated body).
 */
import { describe, expect, it } from "vitest";
import { jsonWithArray, primedTextStream, textStream } from "../../lib/text-stream.js";

async function* from<T>(items: T[]): AsyncGenerator<T> {
  for (const item of items) yield item;
}

async function readAll(stream: ReadableStream<Uint8Array>): Promise<{ text: string; chunks: number }> {
  const reader = stream.getReader();
  const parts: Uint8Array[] = [];
  for (let r = await reader.read(); !r.done; r = await reader.read()) parts.push(r.value);
  return { text: Buffer.concat(parts).toString("utf8"), chunks: parts.length };
}

describe("text streams", () => {
  it("gathers pieces into chunks of about 64 KiB, in order, UTF-8", async () => {
    const pieces = Array.from({ length: 20_000 }, (_, i) => `é${i};`);
    const { text, chunks } = await readAll(textStream(from(pieces)));
    expect(text).toBe(pieces.join(""));
    expect(chunks).toBeGreaterThan(1);
    expect(chunks).toBeLessThan(10);
  });

  it("writes a JSON document whose array is streamed, with its tail after it", async () => {
    let n = 0;
    async function* items() {
      for (const i of [1, 2, 3]) {
        n++;
        yield { i, s: 'q"uote' };
      }
    }
    const head = { action: "export", org_id: "o" };
    const { text } = await readAll(textStream(jsonWithArray(head, "records", items(), () => ({ count: n }))));
    expect(JSON.parse(text)).toEqual({
      ...head,
      records: [1, 2, 3].map((i) => ({ i, s: 'q"uote' })),
      count: 3,
    });
    const empty = await readAll(textStream(jsonWithArray({}, "rows", from([]))));
    expect(JSON.parse(empty.text)).toEqual({ rows: [] });
  });

  it("fails before the first piece as an exception, after it as a stream error", async () => {
    async function* early(failure: Error): AsyncGenerator<string> {
      await Promise.reject(failure);
      yield "never";
    }
    await expect(primedTextStream(early(new Error("storage down")))).rejects.toThrow("storage down");

    const seen: unknown[] = [];
    async function* late(): AsyncGenerator<string> {
      yield '{"a":[';
      throw new Error("lost midway");
    }
    const stream = await primedTextStream(late(), (e) => seen.push(e));
    await expect(readAll(stream)).rejects.toThrow("lost midway");
    expect(seen).toHaveLength(1);
  });
});
