-- Custom SQL migration file, put your code below! --
-- Token buckets are throttling state, not records: losing them in a crash only refills every
-- bucket. UNLOGGED writes no WAL, so the one bucket write per request commits without a WAL flush.
ALTER TABLE "rate_limit_buckets" SET UNLOGGED;
