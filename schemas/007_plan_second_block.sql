-- Migration 7: a training plan can hold two reserved capacities ("Multiple Reserved Capacity
-- blocks in a single training plan may be discontinuous"). plan_capacity keeps the plan's span as
-- before, and for a plan of two blocks the gap between them and the second block's zone: the
-- ledger's rebuild reserves each block in its own zone, and ListTrainingPlans shows a plan
-- between its blocks as Scheduled. A gap of 0 to 0 is none; plans stored before have one block.
ALTER TABLE plan_capacity ADD COLUMN gap_start_ms INTEGER NOT NULL DEFAULT 0;
ALTER TABLE plan_capacity ADD COLUMN gap_end_ms INTEGER NOT NULL DEFAULT 0;
ALTER TABLE plan_capacity ADD COLUMN second_zone TEXT NOT NULL DEFAULT '';
