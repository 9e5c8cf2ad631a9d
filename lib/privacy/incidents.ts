/**
 * The register of confidentiality incidents (Law 25; docs/privacy.md "Incidents"): the operator
 * records every incident (POST /api/privacy-admin `record_incident`) and lists them (GET). Law 25
 * asks the enterprise to keep such a register and to notify the Commission d'accès à
 * l'information and the persons concerned when an incident presents a risk of serious injury.
 */
import { desc } from "drizzle-orm";
import { getDb } from "../db/client.js";
import { type PrivacyIncident, privacyAudit, privacyIncidents } from "../db/schema/index.js";
import { DomainError } from "../errors.js";
import { prefixedId } from "../ids.js";

/** What the operator records (times ISO 8601). */
export interface IncidentInput {
  occurred_at?: string | undefined;
  discovered_at: string;
  description: string;
  information_concerned: string;
  persons_concerned?: number | undefined;
  risk_of_serious_injury: boolean;
  measures?: string | undefined;
  commission_notified_at?: string | undefined;
  persons_notified_at?: string | undefined;
}

/** The JSON form of an incident. */
export interface IncidentView {
  incident_id: string;
  occurred_at: string | null;
  discovered_at: string;
  description: string;
  information_concerned: string;
  persons_concerned: number | null;
  risk_of_serious_injury: boolean;
  measures: string | null;
  commission_notified_at: string | null;
  persons_notified_at: string | null;
  recorded_by_key_id: string | null;
  created_at: string;
}

function view(row: PrivacyIncident): IncidentView {
  const iso = (d: Date | null) => d?.toISOString() ?? null;
  return {
    incident_id: row.id,
    occurred_at: iso(row.occurredAt),
    discovered_at: row.discoveredAt.toISOString(),
    description: row.description,
    information_concerned: row.informationConcerned,
    persons_concerned: row.personsConcerned,
    risk_of_serious_injury: row.riskOfSeriousInjury,
    measures: row.measures,
    commission_notified_at: iso(row.commissionNotifiedAt),
    persons_notified_at: iso(row.personsNotifiedAt),
    recorded_by_key_id: row.recordedByKeyId,
    created_at: row.createdAt.toISOString(),
  };
}

/**
 * Records an incident and its audit row in one transaction.
 * @throws DomainError VALIDATION_ERROR (occurred after discovered)
 */
export async function recordIncident(input: IncidentInput, adminKeyId: string | null): Promise<IncidentView> {
  const date = (v: string | undefined) => (v === undefined ? null : new Date(v));
  const occurredAt = date(input.occurred_at);
  const discoveredAt = new Date(input.discovered_at);
  if (occurredAt && occurredAt > discoveredAt) {
    throw new DomainError("VALIDATION_ERROR", "occurred_at must not be after discovered_at", {
      field: "occurred_at",
    });
  }
  const db = await getDb();
  return db.transaction(async (tx) => {
    const [row] = await tx
      .insert(privacyIncidents)
      .values({
        id: prefixedId("inc"),
        occurredAt,
        discoveredAt,
        description: input.description,
        informationConcerned: input.information_concerned,
        personsConcerned: input.persons_concerned ?? null,
        riskOfSeriousInjury: input.risk_of_serious_injury,
        measures: input.measures ?? null,
        commissionNotifiedAt: date(input.commission_notified_at),
        personsNotifiedAt: date(input.persons_notified_at),
        recordedByKeyId: adminKeyId,
      })
      .returning();
    await tx.insert(privacyAudit).values({
      action: "incident_recorded",
      actor: `admin:${adminKeyId}`,
      details: { incident_id: row!.id, risk_of_serious_injury: input.risk_of_serious_injury },
    });
    return view(row!);
  });
}

/** The register, newest discovery first (at most `limit`). */
export async function listIncidents(limit = 500): Promise<IncidentView[]> {
  const db = await getDb();
  const rows = await db
    .select()
    .from(privacyIncidents)
    .orderBy(desc(privacyIncidents.discoveredAt))
    .limit(limit);
  return rows.map(view);
}
