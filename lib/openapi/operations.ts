/** Every operation descriptor of the service, for /openapi.json, the manifest and llms.txt. */
import {
  accountAdminOperation,
  createClientAccountOperation,
  getClientAccountOperation,
} from "../accounts/operations.js";
import { analyticsOperation } from "../analytics/operations.js";
import { listAuditLogOperation } from "../audit/operations.js";
import { clientAuthOperation } from "../auth/operations.js";
import { getBillingOperation, preAuthorizeOperation } from "../billing/operations.js";
import { listServicesOperation } from "../catalog/operations.js";
import type { Operation } from "../http/operation.js";
import {
  createApiKeyOperation,
  listAccountKeysOperation,
  listApiKeysOperation,
  manageAccountKeysOperation,
  revokeApiKeyOperation,
} from "../keys/operations.js";
import { mcpDeleteOperation, mcpGetOperation, mcpPostOperation } from "../mcp/descriptors/operations.js";
import { listChainTransfersOperation, payTaskOperation } from "../payments/operations.js";
import { getEstimateOperation } from "../pricing/operations.js";
import {
  listPrivacyAdminOperation,
  privacyAdminOperation,
  privacyRequestOperation,
} from "../privacy/operations.js";
import { getScoreOperation, submitScoreOperation } from "../scores/operations.js";
import { taskStreamOperation } from "../stream/operations.js";
import {
  checkPaymentsOperation,
  deliverWebhooksOperation,
  expirePaymentsOperation,
  getCapabilitiesOperation,
  getLlmsTxtOperation,
  getOpenApiOperation,
  getReceiptKeysOperation,
  getStatusOperation,
  privacyRetentionOperation,
} from "../system/descriptors/operations.js";
import {
  cancelTaskOperation,
  completeTaskOperation,
  getTaskStatusOperation,
  listTasksOperation,
  recordPaymentOperation,
  reviewTaskOperation,
  settleRefundOperation,
  submitTaskOperation,
} from "../tasks/operations.js";
import {
  createWebhookOperation,
  deleteWebhookOperation,
  listWebhookFailuresOperation,
  listWebhooksOperation,
  replayWebhookFailureOperation,
} from "../webhooks/operations.js";

/** All operations, public ones first. */
export function allOperations(): Operation[] {
  return [
    listServicesOperation,
    getEstimateOperation,
    submitTaskOperation,
    getTaskStatusOperation,
    cancelTaskOperation,
    payTaskOperation,
    taskStreamOperation,
    createApiKeyOperation,
    listApiKeysOperation,
    revokeApiKeyOperation,
    createWebhookOperation,
    listWebhooksOperation,
    deleteWebhookOperation,
    listWebhookFailuresOperation,
    replayWebhookFailureOperation,
    submitScoreOperation,
    getScoreOperation,
    getBillingOperation,
    preAuthorizeOperation,
    createClientAccountOperation,
    getClientAccountOperation,
    listAccountKeysOperation,
    manageAccountKeysOperation,
    clientAuthOperation,
    reviewTaskOperation,
    completeTaskOperation,
    recordPaymentOperation,
    settleRefundOperation,
    listTasksOperation,
    listChainTransfersOperation,
    accountAdminOperation,
    privacyRequestOperation,
    listPrivacyAdminOperation,
    privacyAdminOperation,
    analyticsOperation,
    listAuditLogOperation,
    mcpPostOperation,
    mcpGetOperation,
    mcpDeleteOperation,
    getCapabilitiesOperation,
    getStatusOperation,
    getOpenApiOperation,
    getLlmsTxtOperation,
    getReceiptKeysOperation,
    checkPaymentsOperation,
    deliverWebhooksOperation,
    expirePaymentsOperation,
    privacyRetentionOperation,
  ] as Operation[];
}
