/** POST /api/field-proof — attach one proof file to a task before completion (field app; permission tasks.execute). */
import { uploadFieldProof } from "../lib/field/field-proof.js";
import { uploadFieldProofOperation } from "../lib/field/operations.js";
import { endpoint, route } from "../lib/http/handler.js";

export const { GET, HEAD, OPTIONS, POST, PUT, PATCH, DELETE } = route({
  POST: endpoint(uploadFieldProofOperation, async ({ body, caller }) => {
    const { taskId, file, filesCount } = await uploadFieldProof(body, caller);
    return { task_id: taskId, file, files_count: filesCount };
  }),
});
