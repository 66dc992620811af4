-- Migration 1: resources of every kind, their tags, and the emulator's own settings.
-- Applied once at start when PRAGMA user_version < 1 (src/store/state_store.cpp).

-- One row per AWS resource. `name_key` is the lower-cased name: AWS ARNs use it, so two names that
-- differ only in case are the same resource. `doc` is the resource's JSON description as the
-- operation handlers keep it; the columns beside it are what lists filter and sort on.
CREATE TABLE resources (
  account     TEXT    NOT NULL,
  region      TEXT    NOT NULL,
  kind        TEXT    NOT NULL,
  name_key    TEXT    NOT NULL,
  name        TEXT    NOT NULL,
  arn         TEXT    NOT NULL,
  status      TEXT    NOT NULL DEFAULT '',
  created_ms  INTEGER NOT NULL,
  modified_ms INTEGER NOT NULL,
  doc         TEXT    NOT NULL,
  PRIMARY KEY (account, region, kind, name_key)
) WITHOUT ROWID;

CREATE INDEX resources_by_creation ON resources (account, region, kind, created_ms, name_key);
CREATE UNIQUE INDEX resources_by_arn ON resources (arn);

-- Tags by resource ARN, in the order they were given.
CREATE TABLE tags (
  arn      TEXT    NOT NULL,
  position INTEGER NOT NULL,
  key      TEXT    NOT NULL,
  value    TEXT    NOT NULL,
  PRIMARY KEY (arn, key)
) WITHOUT ROWID;

-- Emulator settings that survive a restart, such as the virtual clock's offset.
CREATE TABLE emulator_state (
  key   TEXT PRIMARY KEY,
  value TEXT NOT NULL
) WITHOUT ROWID;
