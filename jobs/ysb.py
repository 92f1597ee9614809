"""YSB (Yahoo Streaming Benchmark) job: Q independent query pipelines, built by Java, wired from PyFlink.

The per-record path (Kafka source, filter, join, window, latency instrumentation) is Java
(java-udfs: io.klink.workloads.ysb.YsbJob, io.klink.metrics); this program only hands the run's config
to it and submits the job. Submitted by `klinkctl bench ysb` as `flink run -d -py jobs/ysb.py --config FILE`.
"""

import argparse
import json
from pathlib import Path

from pyflink.datastream import StreamExecutionEnvironment
from pyflink.java_gateway import get_gateway


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--config", required=True, type=Path, help="job config JSON written by the harness")
    args = parser.parse_args()
    config_json = args.config.read_text()
    env = StreamExecutionEnvironment.get_execution_environment()
    get_gateway().jvm.io.klink.workloads.ysb.YsbJob.build(env._j_stream_execution_environment, config_json)
    env.execute(json.loads(config_json)["runId"])


if __name__ == "__main__":
    main()
