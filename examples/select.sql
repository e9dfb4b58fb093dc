-- Select-only: read the balance of a random account (pgbench -S).
\set aid random(1, 100000 * :scale)
SELECT abalance FROM pgbench_accounts WHERE aid = :aid;
