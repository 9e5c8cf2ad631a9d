/** Request headers that several operation descriptors document alike (`documentedHeaders`). */
import type { Operation } from "./operation.js";

/** One documented request header. */
export type DocumentedHeader = NonNullable<Operation["documentedHeaders"]>[number];

/**
 * `X-Task-Access-Token`: the access_token of a keyless submission, with which its requester reads,
 * cancels, disputes and pays the task without a key (task status and cancel, task dispute, task pay).
 */
export const TASK_ACCESS_TOKEN_HEADER: DocumentedHeader = {
  name: "X-Task-Access-Token",
  required: false,
  description: "The access_token of a keyless submission (or send it as `Authorization: Bearer tok_…`).",
};
