"""Reading input topics: the generator packs the events of one send burst into one record, one per line."""

from confluent_kafka import TIMESTAMP_CREATE_TIME, TIMESTAMP_LOG_APPEND_TIME

from klinkctl import kafka_io


class Message:
    """The two things the delay sampling reads from a confluent_kafka message."""

    def __init__(self, value: bytes, appended_at: int, kind: int = TIMESTAMP_LOG_APPEND_TIME) -> None:
        self._value, self._timestamp = value, (kind, appended_at)

    def value(self) -> bytes:
        return self._value

    def timestamp(self) -> tuple[int, int]:
        return self._timestamp


def test_a_packed_record_holds_one_event_per_line_and_a_single_event_is_itself():
    assert kafka_io.events_of(b'{"event_time":1}\n{"event_time":2}') == [b'{"event_time":1}', b'{"event_time":2}']
    assert kafka_io.events_of(b"1.5,2.5,1000") == [b"1.5,2.5,1000"]


def test_every_event_of_a_packed_record_gets_its_own_ingestion_delay():
    message = Message(b'{"event_time":100}\n{"event_time":90}', appended_at=130)
    assert kafka_io._append_delays(message, kafka_io.json_event_time) == [30, 40]


def test_records_without_append_time_give_no_delay():
    message = Message(b'{"event_time":100}', appended_at=130, kind=TIMESTAMP_CREATE_TIME)
    assert kafka_io._append_delays(message, kafka_io.json_event_time) == []
