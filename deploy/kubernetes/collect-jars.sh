#!/usr/bin/env bash
# Fills deploy/kubernetes/build/jars/ with what the cluster needs from klinkctl (the list `klinkctl up --backend
# remote` prints when an agent is missing): lib/ jars (the Kafka connector, klink-metrics, klink-sampler,
# klink-workloads) and klink-agent.jar. Then: docker build -f Dockerfile.jars -t REGISTRY/klink-jars:dev build
set -euo pipefail
cd "$(dirname "$0")"
root=$(cd ../.. && pwd)
out=build/jars
rm -rf build && mkdir -p "$out/lib"
"$root/.venv/bin/python" - "$out" <<'PY'
import shutil, sys
from pathlib import Path
from klinkctl import artifacts

out = Path(sys.argv[1])
for jar in [artifacts.connector_jar(print)] + [j for j in artifacts.build_java_udfs(print)
                                             if j not in artifacts.NOT_ON_CLUSTER_CLASSPATH]:
    shutil.copy2(jar, out / "lib" / jar.name)
shutil.copy2(artifacts.AGENT_JAR, out / "klink-agent.jar")
print("\n".join(sorted(str(p.relative_to(out)) for p in out.rglob("*.jar"))))
PY
