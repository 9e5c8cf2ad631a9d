/** Reads a PDF's text back with Mozilla's PDF.js (pdfjs-dist), for the invoice tests. */

/** The text of every page of `pdf`, one string per line of text items. */
export async function pdfText(pdf: Uint8Array): Promise<string> {
  const pdfjs = (await import("pdfjs-dist/legacy/build/pdf.mjs")) as unknown as {
    getDocument(src: { data: Uint8Array; verbosity: number }): {
      promise: Promise<{
        numPages: number;
        getPage(
          n: number,
        ): Promise<{ getTextContent(): Promise<{ items: { str?: string; hasEOL?: boolean }[] }> }>;
      }>;
    };
  };
  const doc = await pdfjs.getDocument({ data: new Uint8Array(pdf), verbosity: 0 }).promise;
  let out = "";
  for (let n = 1; n <= doc.numPages; n++) {
    const content = await (await doc.getPage(n)).getTextContent();
    for (const item of content.items) out += (item.str ?? "") + (item.hasEOL ? "\n" : "");
  }
  return out;
}
