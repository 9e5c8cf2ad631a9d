-- The dashboard keeps the closed part of its top clients summed per client (docs/decisions.md 26;
-- lib/analytics/top-clients.ts), and a client is the API key's contact: a key whose contact
-- changes (a Law 25 erasure) or a key deleted moves revenue from one client to another. These
-- triggers raise `tasks_paid_clients` then, as migration 0033's do for a closed week's roll-up rows.
-- The row trigger's WHEN clause keeps every other update of api_keys (last use, revocation,
-- scopes) free of it.
CREATE FUNCTION api_keys_contact_bump() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE rollup_versions SET version = version + 1 WHERE name = 'tasks_paid_clients';
  RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE TRIGGER api_keys_contact_bump_update AFTER UPDATE OF contact ON api_keys
  FOR EACH ROW WHEN (OLD.contact IS DISTINCT FROM NEW.contact) EXECUTE FUNCTION api_keys_contact_bump();
--> statement-breakpoint
CREATE TRIGGER api_keys_contact_bump_delete AFTER DELETE ON api_keys
  FOR EACH STATEMENT EXECUTE FUNCTION api_keys_contact_bump();
