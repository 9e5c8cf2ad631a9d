-- Trigram matching for the task list's text search (issue 32 item 3): `q` is a substring search
-- (ILIKE '%…%'), which a B-tree cannot serve; a GIN index of trigrams can. PGlite loads the
-- extension as a contrib module (lib/db/client.ts pgliteOptions); PostgreSQL and Neon ship it.
CREATE EXTENSION IF NOT EXISTS pg_trgm;
