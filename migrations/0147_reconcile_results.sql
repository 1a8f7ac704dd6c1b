-- The latest chain reconciliation of each chain and asset (issue 16), written by every run of
-- `payments reconcile chains` and of the dashboard's reconciliation: /metrics shows them
-- (reconcile_lines, reconcile_checked_timestamp_seconds) without reading a node at each scrape, so
-- an alert rule (deploy/prometheus) can fire on a difference. Amounts are smallest units, exact.
CREATE TABLE reconcile_results (
  chain text NOT NULL,
  asset text NOT NULL,
  status text NOT NULL CHECK (status IN ('agrees', 'unexplained', 'unreadable')),
  difference numeric,
  explanation text NOT NULL,
  checked_at timestamptz(3) NOT NULL DEFAULT now(),
  PRIMARY KEY (chain, asset)
);
