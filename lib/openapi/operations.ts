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
import { downloadExportOperation, getExportJobOperation } from "../exports/operations.js";
import {
  assignTaskOperation,
  listAssignableStaffOperation,
  listFieldTasksOperation,
  readFieldProofOperation,
  recordFieldVisitOperation,
  uploadFieldProofOperation,
} from "../field/operations.js";
import type { Operation } from "../http/operation.js";
import {
  createApiKeyOperation,
  listAccountKeysOperation,
  listApiKeysOperation,
  manageAccountKeysOperation,
  revokeApiKeyOperation,
} from "../keys/operations.js";
import { mcpDeleteOperation, mcpGetOperation, mcpPostOperation } from "../mcp/descriptors/operations.js";
import {
  authorizationServerMetadataOperation,
  mcpOAuthGetOperation,
  mcpOAuthPostOperation,
  oauthGetOperation,
  oauthPostOperation,
  protectedResourceOperation,
} from "../oauth/operations.js";
import {
  listChainTransfersOperation,
  payTaskOperation,
  readTaskPaymentOperation,
} from "../payments/operations.js";
import { getEstimateOperation } from "../pricing/operations.js";
import {
  listPrivacyAdminOperation,
  privacyAdminOperation,
  privacyRequestOperation,
} from "../privacy/operations.js";
import { changeStaffPushOperation, staffPushSettingsOperation } from "../push/operations.js";
import { getScoreOperation, submitScoreOperation } from "../scores/operations.js";
import {
  changeStaffCredentialsOperation,
  changeStaffOperation,
  listStaffOperation,
  staffAuthOperation,
  staffCredentialsOperation,
  staffSessionOperation,
} from "../staff/operations.js";
import { taskStreamOperation } from "../stream/operations.js";
import {
  checkPaymentsOperation,
  deadlineWatchOperation,
  deliverWebhooksOperation,
  expirePaymentsOperation,
  exportJobsOperation,
  getCapabilitiesOperation,
  getLlmsTxtOperation,
  getOpenApiOperation,
  getReceiptKeysOperation,
  getStatusOperation,
  privacyRetentionOperation,
  slaCreditsOperation,
} from "../system/descriptors/operations.js";
import {
  cancelTaskOperation,
  completeTaskOperation,
  getTaskStatusOperation,
  listDisputesOperation,
  listTasksOperation,
  openDisputeOperation,
  recordPaymentOperation,
  resolveDisputeOperation,
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
    openDisputeOperation,
    payTaskOperation,
    readTaskPaymentOperation,
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
    resolveDisputeOperation,
    listDisputesOperation,
    assignTaskOperation,
    listAssignableStaffOperation,
    listFieldTasksOperation,
    recordFieldVisitOperation,
    readFieldProofOperation,
    uploadFieldProofOperation,
    listChainTransfersOperation,
    accountAdminOperation,
    privacyRequestOperation,
    listPrivacyAdminOperation,
    privacyAdminOperation,
    getExportJobOperation,
    downloadExportOperation,
    analyticsOperation,
    listAuditLogOperation,
    staffAuthOperation,
    staffSessionOperation,
    listStaffOperation,
    changeStaffOperation,
    staffPushSettingsOperation,
    changeStaffPushOperation,
    staffCredentialsOperation,
    changeStaffCredentialsOperation,
    mcpPostOperation,
    mcpGetOperation,
    mcpDeleteOperation,
    mcpOAuthPostOperation,
    mcpOAuthGetOperation,
    protectedResourceOperation,
    authorizationServerMetadataOperation,
    oauthGetOperation,
    oauthPostOperation,
    getCapabilitiesOperation,
    getStatusOperation,
    getOpenApiOperation,
    getLlmsTxtOperation,
    getReceiptKeysOperation,
    checkPaymentsOperation,
    deliverWebhooksOperation,
    expirePaymentsOperation,
    privacyRetentionOperation,
    exportJobsOperation,
    slaCreditsOperation,
    deadlineWatchOperation,
  ] as Operation[];
}
