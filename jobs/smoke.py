"""Smoke job: JSON events from Kafka -> event-time tumbling window (count, sum per key) -> JSON to Kafka.

Pure Flink SQL, so nothing runs in Python per record; the Python process only builds the plan.
Submitted by `klinkctl smoke` with `flink run -d -py jobs/smoke.py --bootstrap ... --input ... --output ...`.
"""

import argparse

from pyflink.table import EnvironmentSettings, TableEnvironment


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--bootstrap", required=True)
    parser.add_argument("--input", required=True, help="topic with {key, value, event_time} events")
    parser.add_argument("--output", required=True, help="topic for {key, window_start, window_end, events, total}")
    parser.add_argument("--window-ms", type=int, default=2000)
    parser.add_argument("--out-of-orderness-ms", type=int, default=500)
    parser.add_argument("--job-name", default="klink-smoke")
    return parser.parse_args()


def main() -> None:
    args = parse_args()
    t_env = TableEnvironment.create(EnvironmentSettings.in_streaming_mode())
    config = t_env.get_config()
    config.set("pipeline.name", args.job_name)
    config.set("table.local-time-zone", "UTC")
    kafka = f"'connector' = 'kafka', 'properties.bootstrap.servers' = '{args.bootstrap}', 'format' = 'json'"
    t_env.execute_sql(f"""
        CREATE TABLE events (
            `key` STRING,
            `value` BIGINT,
            event_time BIGINT,
            ts AS TO_TIMESTAMP_LTZ(event_time, 3),
            WATERMARK FOR ts AS ts - INTERVAL '{args.out_of_orderness_ms / 1000}' SECOND
        ) WITH ({kafka}, 'topic' = '{args.input}', 'properties.group.id' = '{args.job_name}',
                'scan.startup.mode' = 'earliest-offset')""")
    t_env.execute_sql(f"""
        CREATE TABLE windows (
            `key` STRING, window_start TIMESTAMP(3), window_end TIMESTAMP(3), events BIGINT, total BIGINT
        ) WITH ({kafka}, 'topic' = '{args.output}', 'json.timestamp-format.standard' = 'ISO-8601')""")
    t_env.execute_sql(f"""
        INSERT INTO windows
        SELECT `key`, window_start, window_end, COUNT(*), SUM(`value`)
        FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '{args.window_ms / 1000}' SECOND))
        GROUP BY `key`, window_start, window_end""")


if __name__ == "__main__":
    main()
