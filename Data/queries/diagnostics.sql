-- Diagnostics by code for one run (default: the newest run that recorded any), with an example.
-- param run = null       run id; null for the newest run with diagnostics
SELECT d.run_id, r.pipeline, d.code, count(*) AS count, min(d.location) AS example_location,
       min(d.message) AS example_message
FROM diagnostic d JOIN run r ON r.id = d.run_id
WHERE d.run_id = coalesce(:run, (SELECT max(run_id) FROM diagnostic))
GROUP BY d.run_id, r.pipeline, d.code
ORDER BY count DESC, d.code;
