"""Which Flink counter says how many events a task read."""

from klinkctl.run.collectors import source_events_metric


def test_a_source_task_reads_the_events_its_source_operator_emitted_not_the_kafka_records():
    assert (source_events_metric("Source: q07/source -> q07/markers -> q07/filter -> q07/join")
            == "Source__q07/source.numRecordsOut")


def test_other_tasks_use_their_own_records_in():
    assert source_events_metric("q07/window -> q07/output -> q07/metrics") is None
