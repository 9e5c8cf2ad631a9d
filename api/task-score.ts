/** /api/task-score — rate a finished task (POST) and read scores or reputation (GET). */
import { endpoint, route } from "../lib/http/handler.js";
import { getScoreOperation, submitScoreOperation } from "../lib/scores/operations.js";
import { getScore, submitScore } from "../lib/scores/task-scores.js";

export const { GET, HEAD, OPTIONS, POST, PUT, PATCH, DELETE } = route({
  POST: endpoint(submitScoreOperation, ({ caller, body }) => submitScore(caller, body)),
  GET: endpoint(getScoreOperation, ({ caller, query }) => getScore(caller, query)),
});
