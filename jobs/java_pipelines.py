"""A workload's job: Q independent query pipelines, built by Java, wired from PyFlink.

The per-record path (Kafka source, the workload's operators, window, latency instrumentation) is Java
(java-udfs: io.klink.workloads.<workload>.<Workload>Job, io.klink.metrics); this program only hands the
run's config to the builder class the config names ("builder") and submits the job. Submitted by
`klinkctl bench <workload>` as `flink run -d -py jobs/java_pipelines.py --config FILE`.
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
    config = json.loads(config_json)
    env = StreamExecutionEnvironment.get_execution_environment()
    builder = get_gateway().jvm
    for part in config["builder"].split("."):
        builder = getattr(builder, part)
    builder.build(env._j_stream_execution_environment, config_json)
    env.execute(config["runId"])


if __name__ == "__main__":
    main()
