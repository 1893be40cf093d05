-- Saramin job postings per region (시도, the part of the location before '>'), most first.
-- A posting listing several regions counts once in each.
-- param active = null    1 for open postings only, 0 for closed only; null for all
SELECT l.province AS region, count(DISTINCT l.posting_id) AS postings
FROM job_posting_location l JOIN job_posting p ON p.posting_id = l.posting_id
WHERE l.province IS NOT NULL AND (:active IS NULL OR p.active = :active)
GROUP BY l.province
ORDER BY postings DESC, region;
