-- Run history from the ledger, newest first: outcome, duration, payloads, rows and diagnostics.
-- param pipeline = null  pipeline name such as airkorea-seoul; null for every pipeline
-- param limit = 20       how many runs
SELECT id, pipeline, mode, status, started_at, duration_s, payloads, payloads_skipped,
       rows_inserted, rows_updated, rows_unchanged, diagnostics, error
FROM run_history
WHERE :pipeline IS NULL OR pipeline = :pipeline
ORDER BY id DESC
LIMIT :limit;
