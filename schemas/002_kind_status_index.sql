-- Migration 2: an index for the lookups by kind and status that every request makes.
-- Before each operation the emulator settles endpoints that are Creating, Updating or Deleting and
-- jobs that are InProgress, and DescribeEndpoint / DescribeTrainingPlan count the instances all
-- endpoints hold (StateStore::AllOfKind). Without this index each of those is a scan of the whole
-- table, training plans included, so every request slowed down with the number of plans sold.
CREATE INDEX resources_by_kind_status ON resources (kind, status, created_ms);
