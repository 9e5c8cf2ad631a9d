/**
 * Relations for drizzle's relational queries (`db.query.tasks.findFirst({ with: ... })`).
 * They add no SQL; the foreign keys live on the tables.
 */
import { relations } from "drizzle-orm";
import { apiKeys, clientAccounts } from "./accounts-and-keys.js";
import { authTokens } from "./auth-tokens.js";
import { chainTransfers } from "./chain-transfers.js";
import { deliveries } from "./deliveries.js";
import { invoices } from "./invoices.js";
import { ledgerEntries } from "./ledger-entries.js";
import { preauthorizations } from "./preauthorizations.js";
import { proofFiles } from "./proof-files.js";
import { taskEvents } from "./task-events.js";
import { taskScores } from "./task-scores.js";
import { tasks } from "./tasks.js";
import { webhooks } from "./webhooks.js";

export const apiKeysRelations = relations(apiKeys, ({ one, many }) => ({
  createdBy: one(apiKeys, {
    fields: [apiKeys.createdByKeyId],
    references: [apiKeys.id],
    relationName: "api_key_creator",
  }),
  createdKeys: many(apiKeys, { relationName: "api_key_creator" }),
  tasks: many(tasks),
  webhooks: many(webhooks),
}));

export const tasksRelations = relations(tasks, ({ one, many }) => ({
  apiKey: one(apiKeys, { fields: [tasks.apiKeyId], references: [apiKeys.id] }),
  account: one(clientAccounts, { fields: [tasks.accountId], references: [clientAccounts.id] }),
  events: many(taskEvents),
  proofFiles: many(proofFiles),
  score: one(taskScores),
  deliveries: many(deliveries),
  chainTransfers: many(chainTransfers),
}));

export const taskEventsRelations = relations(taskEvents, ({ one, many }) => ({
  task: one(tasks, { fields: [taskEvents.taskId], references: [tasks.id] }),
  deliveries: many(deliveries),
}));

export const proofFilesRelations = relations(proofFiles, ({ one }) => ({
  task: one(tasks, { fields: [proofFiles.taskId], references: [tasks.id] }),
}));

export const taskScoresRelations = relations(taskScores, ({ one }) => ({
  task: one(tasks, { fields: [taskScores.taskId], references: [tasks.id] }),
}));

export const chainTransfersRelations = relations(chainTransfers, ({ one }) => ({
  task: one(tasks, { fields: [chainTransfers.taskId], references: [tasks.id] }),
}));

export const webhooksRelations = relations(webhooks, ({ one, many }) => ({
  apiKey: one(apiKeys, { fields: [webhooks.apiKeyId], references: [apiKeys.id] }),
  deliveries: many(deliveries),
}));

export const deliveriesRelations = relations(deliveries, ({ one }) => ({
  event: one(taskEvents, { fields: [deliveries.eventId], references: [taskEvents.id] }),
  webhook: one(webhooks, { fields: [deliveries.webhookId], references: [webhooks.id] }),
  task: one(tasks, { fields: [deliveries.taskId], references: [tasks.id] }),
}));

export const clientAccountsRelations = relations(clientAccounts, ({ many }) => ({
  tasks: many(tasks),
  ledgerEntries: many(ledgerEntries),
  invoices: many(invoices),
  preauthorizations: many(preauthorizations),
  authTokens: many(authTokens),
}));

export const ledgerEntriesRelations = relations(ledgerEntries, ({ one }) => ({
  account: one(clientAccounts, { fields: [ledgerEntries.accountId], references: [clientAccounts.id] }),
  task: one(tasks, { fields: [ledgerEntries.taskId], references: [tasks.id] }),
  invoice: one(invoices, { fields: [ledgerEntries.invoiceId], references: [invoices.id] }),
}));

export const invoicesRelations = relations(invoices, ({ one, many }) => ({
  account: one(clientAccounts, { fields: [invoices.accountId], references: [clientAccounts.id] }),
  task: one(tasks, { fields: [invoices.taskId], references: [tasks.id] }),
  ledgerEntries: many(ledgerEntries),
}));

export const preauthorizationsRelations = relations(preauthorizations, ({ one }) => ({
  account: one(clientAccounts, { fields: [preauthorizations.accountId], references: [clientAccounts.id] }),
  consumedByTask: one(tasks, { fields: [preauthorizations.consumedByTaskId], references: [tasks.id] }),
}));

export const authTokensRelations = relations(authTokens, ({ one }) => ({
  account: one(clientAccounts, { fields: [authTokens.accountId], references: [clientAccounts.id] }),
}));
