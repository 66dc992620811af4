-- Migration 10: every job document has the members its codec reads, so that the codec is strict
-- (a missing member is a StoreFailure naming the row, never a default). Jobs written before the
-- typed domain had no Phase (they were stored once ended) and no PendingAccruedMs (nothing had
-- been pending).
UPDATE resources SET doc = json_set(doc, '$.Phase', 'Ended')
  WHERE kind IN ('training-job', 'processing-job') AND json_type(doc, '$.Phase') IS NULL;
UPDATE resources SET doc = json_set(doc, '$.PendingAccruedMs', 0)
  WHERE kind IN ('training-job', 'processing-job')
    AND json_type(doc, '$.PendingAccruedMs') IS NULL;
