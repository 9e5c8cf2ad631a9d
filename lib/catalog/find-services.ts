/**
 * The catalog query shared by GET /api/services and the MCP tool `list_services`: all five
 * services, or the one named by `id`, with or without their contracts.
 */

import { DomainError } from "../errors.js";
import { serviceIdRange } from "./facts.js";
import { type CatalogEntry, getService, listServices } from "./services.js";

/** What to list: `id` (exact, e.g. `SVC-01`) narrows to one service; omitted lists them all. */
export interface ServicesQuery {
  id?: string | undefined;
  /** Include each entry's `contract` (inputs/outputs JSON Schemas, SLA, pricing, cancellation). */
  includeContract: boolean;
}

/**
 * The catalog entries matching `query`, in id order, and their count.
 * @returns `{ services, count }` — `count` is `services.length` (5, or 1 with `id`)
 * @throws DomainError NOT_FOUND (field `id`) when `id` names no service
 */
export function findServices(query: ServicesQuery): { services: CatalogEntry[]; count: number } {
  const options = { includeContract: query.includeContract };
  if (query.id === undefined) {
    const services = listServices(options);
    return { services, count: services.length };
  }
  const one = getService(query.id, options);
  if (!one)
    throw new DomainError("NOT_FOUND", `No service ${query.id}; ids are ${serviceIdRange()}`, {
      field: "id",
    });
  return { services: [one], count: 1 };
}
