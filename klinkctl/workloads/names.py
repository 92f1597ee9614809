"""The workloads by name, in one place: run.config checks a bench's workload against them and
``klinkctl.workloads.get`` loads the module of that name. A leaf module, so that run.config can import it
while the workload modules import run.config."""

WORKLOADS = ("ysb", "nyt", "lrb", "kmeans")
#: Workloads whose exact window results the harness computes from the generated events (accuracy, samplers).
ACCURACY_WORKLOADS = ("ysb", "nyt", "kmeans")
