/**
 * The public links of a task (status, event stream, cancel), built on the public base URL
 * (`PUBLIC_BASE_URL`). In the state layer so that the notifications (e-mails, webhook
 * payloads), which the state layer's events feed, can build them without reading the workflows.
 */
import { publicBaseUrl } from "../../config.js";

/**
 * Links of task `taskId`: absolute URLs `{ self, stream, cancel }` (`self` and `cancel` are the
 * same resource: GET reads the status, DELETE cancels).
 */
export function taskLinks(taskId: string): { self: string; stream: string; cancel: string } {
  const base = publicBaseUrl();
  const id = encodeURIComponent(taskId);
  return {
    self: `${base}/api/submit-task?task_id=${id}`,
    stream: `${base}/api/tasks/stream?task_id=${id}`,
    cancel: `${base}/api/submit-task?task_id=${id}`,
  };
}
