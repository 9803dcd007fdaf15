-- Many hosts' per-I/O logs (iowatcher -t TRACE --events logs/HOST.csv),
-- read as one table: the p99 of Q2C and D2C per host and device, then
-- across the fleet, and every row kept as Parquet. Run where logs/ is:
-- duckdb < fleet.sql. quantile_disc gives a latency that happened, as
-- iowatcher's --summary does (its p99 within 0.4% of this).
CREATE VIEW io AS
	SELECT * FROM read_csv('logs/*.csv', union_by_name = true);

SELECT host, device, device_name, count(q2c_us) AS bios,
       quantile_disc(q2c_us, 0.99) AS q2c_p99_us,
       quantile_disc(d2c_us, 0.99) AS d2c_p99_us,
       min(wall_time) AS first_completion
FROM io GROUP BY host, device, device_name ORDER BY host, device;

SELECT count(DISTINCT host) AS hosts, count(q2c_us) AS bios,
       quantile_disc(q2c_us, 0.99) AS q2c_p99_us,
       quantile_disc(d2c_us, 0.99) AS d2c_p99_us
FROM io;

COPY io TO 'fleet.parquet' (FORMAT parquet);
