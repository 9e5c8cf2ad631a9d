/**
 * /api/field-proof — POST attaches one proof file to a task before completion; GET answers one
 * proof photo's bytes for the field app's thumbnails (permission tasks.execute; lib/field/field-proof.ts).
 */
import { readFieldProof, uploadFieldProof } from "../lib/field/field-proof.js";
import { readFieldProofOperation, uploadFieldProofOperation } from "../lib/field/operations.js";
import { endpoint, route } from "../lib/http/handler.js";

export const { GET, HEAD, OPTIONS, POST, PUT, PATCH, DELETE } = route({
  GET: endpoint(readFieldProofOperation, async ({ query, caller }) => {
    const file = await readFieldProof(query, caller);
    return new Response(file.content, {
      headers: {
        "content-type": file.mimeType,
        "content-length": String(file.content.byteLength),
        // A staff member's own data: kept by this browser only, and a short while (the file never changes).
        "cache-control": "private, max-age=3600",
      },
    });
  }),
  POST: endpoint(uploadFieldProofOperation, async ({ body, caller }) => {
    const { taskId, file, filesCount } = await uploadFieldProof(body, caller);
    return { task_id: taskId, file, files_count: filesCount };
  }),
});
