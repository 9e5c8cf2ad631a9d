/**
 * The operation descriptors (lib/descriptors/operation.ts) as the adapters (the handler wrapper,
 * /openapi.json, MCP, discovery) import them.
 */
export * from "../descriptors/operation.js";
