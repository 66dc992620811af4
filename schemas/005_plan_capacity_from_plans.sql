-- Migration 5: plan_capacity is written by the plan repository (ops/plan_records.cpp, through
-- StateStore::PutPlanCapacity) from typed plans, in the same write scope as the plan's row, and
-- goes with the row it belongs to (StateStore::Delete, DeleteEverything). The triggers of
-- migration 4 read the plan's JSON document, so the store depended on the shape of a document the
-- operation layer owns. The rows already there stay as they are.
DROP TRIGGER plan_capacity_on_insert;
DROP TRIGGER plan_capacity_on_update;
DROP TRIGGER plan_capacity_on_delete;
