-- Migration 3: what each resource held and when, for the cost ledger (GET /_emulator/costs).
-- A row is one stretch of time during which a resource held `count` instances of a type, on a
-- training plan (`plan_arn`, the ARN the resource names it by) or on demand (`plan_arn` = '').
-- `to_ms` is NULL while the resource still holds them. Holdings themselves are rebuilt from the
-- resources at start; this table only keeps their history.
CREATE TABLE holdings_log (
  arn           TEXT    NOT NULL,
  account       TEXT    NOT NULL,
  region        TEXT    NOT NULL,
  kind          TEXT    NOT NULL,
  name          TEXT    NOT NULL,
  instance_type TEXT    NOT NULL,
  plan_arn      TEXT    NOT NULL,
  count         INTEGER NOT NULL,
  from_ms       INTEGER NOT NULL,
  to_ms         INTEGER
);
CREATE INDEX holdings_log_open ON holdings_log (arn) WHERE to_ms IS NULL;
