-- Migration 8: a purchase whose payment fails is Failed from the moment its payment would have
-- completed, and reserves nothing (a fault rule makes a payment fail). plan_capacity keeps the
-- flag, so that ListTrainingPlans filters and sorts Failed plans in SQL and the ledger's rebuild
-- leaves them out. Plans stored before were all paid for.
ALTER TABLE plan_capacity ADD COLUMN payment_fails INTEGER NOT NULL DEFAULT 0;
