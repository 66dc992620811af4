-- Migration 11: listings walk the ordered indexes of the tables in memory (store/tables.hpp), so
-- the database no longer answers them: its indexes by creation time, by kind and status, and by a
-- plan's start only cost every write their pages. The rows keep their primary keys, the ARN's
-- uniqueness and the holdings log's index of open stretches, which the database still answers.
DROP INDEX IF EXISTS resources_by_creation;
DROP INDEX IF EXISTS resources_by_kind_status;
DROP INDEX IF EXISTS plan_capacity_by_start;
