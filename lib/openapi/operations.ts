/** Every operation descriptor of the service, for /openapi.json, the manifest and llms.txt. */
import { listServicesOperation } from "../catalog/operations.js";
import type { Operation } from "../http/operation.js";
import { createApiKeyOperation, listApiKeysOperation, revokeApiKeyOperation } from "../keys/operations.js";
import { mcpDeleteOperation, mcpGetOperation, mcpPostOperation } from "../mcp/operations.js";
import { getEstimateOperation } from "../pricing/operations.js";
import {
  checkPaymentsOperation,
  deliverWebhooksOperation,
  expirePaymentsOperation,
  getCapabilitiesOperation,
  getLlmsTxtOperation,
  getOpenApiOperation,
  getStatusOperation,
} from "../system/operations.js";
import {
  cancelTaskOperation,
  completeTaskOperation,
  getTaskStatusOperation,
  listTasksOperation,
  recordPaymentOperation,
  reviewTaskOperation,
  submitTaskOperation,
} from "../tasks/operations.js";

/** All operations, public ones first. */
export function allOperations(): Operation[] {
  return [
    listServicesOperation,
    getEstimateOperation,
    submitTaskOperation,
    getTaskStatusOperation,
    cancelTaskOperation,
    createApiKeyOperation,
    listApiKeysOperation,
    revokeApiKeyOperation,
    reviewTaskOperation,
    completeTaskOperation,
    recordPaymentOperation,
    listTasksOperation,
    mcpPostOperation,
    mcpGetOperation,
    mcpDeleteOperation,
    getCapabilitiesOperation,
    getStatusOperation,
    getOpenApiOperation,
    getLlmsTxtOperation,
    checkPaymentsOperation,
    deliverWebhooksOperation,
    expirePaymentsOperation,
  ] as Operation[];
}
