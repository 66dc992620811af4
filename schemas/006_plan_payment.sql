-- Migration 6: a training plan is Pending until its payment completes (CreateTrainingPlan: "Upon
-- successful upfront payment, the plan status becomes Scheduled"). plan_capacity keeps the moment
-- the payment completes, so that ListTrainingPlans filters and sorts Pending plans in SQL. Plans
-- already stored were paid when they were bought: 0, long before any clock.
ALTER TABLE plan_capacity ADD COLUMN paid_ms INTEGER NOT NULL DEFAULT 0;
