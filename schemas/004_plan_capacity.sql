-- Migration 4: the capacity each training plan reserves, in columns beside its document.
-- Start-up rebuilds the capacity ledger from every plan sold, and ListTrainingPlans sorts and
-- filters by a plan's window. Both used to parse every plan's JSON document: with 10,000 plans
-- that was most of a start and most of each listing. This table holds what they need as plain
-- values, with an index in ListTrainingPlans' default order (start time, then name), so a page
-- of plans is a keyset query whatever the number of plans.
--
-- Triggers keep it in step with `resources` in the same transaction as every write, whichever
-- code path writes (create, extend, reset, a rolled-back request). The JSON paths are those of
-- the plan document the operation layer writes (ops::PlanDoc, src/ops/plan_records.cpp).
CREATE TABLE plan_capacity (
  account           TEXT    NOT NULL,
  region            TEXT    NOT NULL,
  name_key          TEXT    NOT NULL,
  arn               TEXT    NOT NULL,
  availability_zone TEXT    NOT NULL,
  instance_type     TEXT    NOT NULL,
  instance_count    INTEGER NOT NULL,
  start_ms          INTEGER NOT NULL,
  end_ms            INTEGER NOT NULL,
  PRIMARY KEY (account, region, name_key)
) WITHOUT ROWID;

CREATE INDEX plan_capacity_by_start ON plan_capacity (account, region, start_ms, name_key);

CREATE TRIGGER plan_capacity_on_insert AFTER INSERT ON resources
WHEN NEW.kind = 'training-plan'
BEGIN
  INSERT OR REPLACE INTO plan_capacity VALUES (
    NEW.account, NEW.region, NEW.name_key, NEW.arn,
    json_extract(NEW.doc, '$.AvailabilityZone'), json_extract(NEW.doc, '$.InstanceType'),
    json_extract(NEW.doc, '$.InstanceCount'), json_extract(NEW.doc, '$.StartMs'),
    json_extract(NEW.doc, '$.EndMs'));
END;

CREATE TRIGGER plan_capacity_on_update AFTER UPDATE OF doc ON resources
WHEN NEW.kind = 'training-plan'
BEGIN
  INSERT OR REPLACE INTO plan_capacity VALUES (
    NEW.account, NEW.region, NEW.name_key, NEW.arn,
    json_extract(NEW.doc, '$.AvailabilityZone'), json_extract(NEW.doc, '$.InstanceType'),
    json_extract(NEW.doc, '$.InstanceCount'), json_extract(NEW.doc, '$.StartMs'),
    json_extract(NEW.doc, '$.EndMs'));
END;

CREATE TRIGGER plan_capacity_on_delete AFTER DELETE ON resources
WHEN OLD.kind = 'training-plan'
BEGIN
  DELETE FROM plan_capacity
  WHERE account = OLD.account AND region = OLD.region AND name_key = OLD.name_key;
END;

-- Plans sold before this migration.
INSERT INTO plan_capacity
SELECT account, region, name_key, arn,
       json_extract(doc, '$.AvailabilityZone'), json_extract(doc, '$.InstanceType'),
       json_extract(doc, '$.InstanceCount'), json_extract(doc, '$.StartMs'),
       json_extract(doc, '$.EndMs')
FROM resources WHERE kind = 'training-plan';
