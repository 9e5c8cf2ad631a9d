/**
 * Text produced piece by piece as a byte stream (UTF-8): the streamed JSON answers (the Law 25
 * account export, lib/privacy/export.ts; the compliance export in JSON, lib/analytics/analytics.ts),
 * so a document of any size is sent as it is read and never held whole in memory (issue 32 item 4).
 */

/** Text gathered before a chunk is sent, characters (about 64 KiB): fewer, fuller writes. */
const CHUNK_CHARS = 64 * 1024;

/**
 * A byte stream of the pieces of `pieces`, gathered into chunks of about 64 KiB. A failure of the
 * source after the first bytes errors the stream (the reader sees a truncated body, never a
 * complete-looking one); `onError` is told first (logging). Cancelling the stream ends the source.
 */
export function textStream(
  pieces: AsyncIterator<string>,
  onError?: (error: unknown) => void,
): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        let text = "";
        while (text.length < CHUNK_CHARS) {
          const next = await pieces.next();
          if (next.done) {
            if (text) controller.enqueue(encoder.encode(text));
            controller.close();
            return;
          }
          text += next.value;
        }
        controller.enqueue(encoder.encode(text));
      } catch (error) {
        onError?.(error);
        controller.error(error);
      }
    },
    async cancel() {
      await pieces.return?.(undefined);
    },
  });
}

/**
 * {@link textStream} of `pieces` with the first piece taken before the stream is returned: work
 * the source does before its first piece (an audit row, the first reads) fails here, as an
 * exception the HTTP wrapper answers in the error envelope (503 with Retry-After for storage),
 * rather than inside a body whose 200 status is already sent.
 * @throws whatever the source throws before its first piece
 */
export async function primedTextStream(
  pieces: AsyncGenerator<string>,
  onError?: (error: unknown) => void,
): Promise<ReadableStream<Uint8Array>> {
  const first = await pieces.next();
  async function* rest(): AsyncGenerator<string> {
    if (first.done) return;
    yield first.value;
    yield* pieces;
  }
  return textStream(rest(), onError);
}

/**
 * The pieces of the JSON text of `head` with one more member, `name`, the array of `items`
 * written as they come, followed by the members of `tail()` (read once the items are done:
 * a count, say). Member order is not meaningful in JSON; the array simply comes after `head`.
 */
export async function* jsonWithArray(
  head: Record<string, unknown>,
  name: string,
  items: AsyncIterable<unknown>,
  tail: () => Record<string, unknown> = () => ({}),
): AsyncGenerator<string> {
  const opening = JSON.stringify(head).slice(0, -1);
  yield `${opening}${opening.length > 1 ? "," : ""}${JSON.stringify(name)}:[`;
  let first = true;
  for await (const item of items) {
    yield `${first ? "" : ","}${JSON.stringify(item)}`;
    first = false;
  }
  const rest = JSON.stringify(tail()).slice(1);
  yield rest === "}" ? "]}" : `],${rest}`;
}
