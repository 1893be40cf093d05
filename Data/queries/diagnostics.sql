-- The diagnostics one run recorded, newest run with any by default: what was odd, where, and the value.
-- param run = null       run id (the summary of `feedline run` names it); null for the newest run with diagnostics
-- param code = null      only this code (e.g. grade-mismatch, field-too-long); null for every code
-- param limit = 200      at most this many rows
SELECT d.run_id AS run, r.pipeline, d.code, d.location, d.message, d.value
FROM diagnostic d JOIN run r ON r.id = d.run_id
WHERE d.run_id = coalesce(:run, (SELECT max(run_id) FROM diagnostic))
  AND (:code IS NULL OR d.code = :code)
ORDER BY d.id
LIMIT :limit;
