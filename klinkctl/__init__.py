"""klinkctl: latency experiments for scheduling and sampling policies on a real Flink + Kafka stack."""

__version__ = "0.1.0"

#: Versions of the stack this release is built and tested against (DESIGN.md §3).
FLINK_VERSION = "2.3.0"
KAFKA_VERSION = "4.1.1"
FLINK_KAFKA_CONNECTOR_VERSION = "5.0.0-2.2"
