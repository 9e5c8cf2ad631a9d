/**
 * The API's version: OpenAPI `info.version` of /openapi.json, the platform version of
 * /api/capabilities and the MCP server's version (docs/api-conventions.md "Versioning").
 * In lib/descriptors, beside the operation descriptors, so the documents and MCP read it without
 * importing each other.
 */
export const API_VERSION = "4.0.0";
