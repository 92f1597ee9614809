"""Topics, producing and consuming JSON records: the harness's side of Kafka (confluent-kafka, librdkafka)."""

from __future__ import annotations

import concurrent.futures
import json
import time
from collections.abc import Callable, Iterable, Iterator

import numpy as np
from confluent_kafka import (TIMESTAMP_LOG_APPEND_TIME, Consumer, KafkaError, KafkaException, Message, Producer,
                             TopicPartition)
from confluent_kafka.admin import AdminClient, NewTopic

from klinkctl.errors import KlinkError
from klinkctl.stack.kafka import QUIET_CLIENT_LOGGER


def _admin(bootstrap: str) -> AdminClient:
    return AdminClient({"bootstrap.servers": bootstrap, "logger": QUIET_CLIENT_LOGGER})


def _wait_all(futures: dict, what: str, tolerated: tuple[int, ...] = (), timeout_s: float = 30) -> None:
    """Every admin operation's result, within one deadline for all of them (a dead broker answers none)."""
    deadline = time.monotonic() + timeout_s
    for topic, future in futures.items():
        try:
            future.result(timeout=max(0.1, deadline - time.monotonic()))
        except KafkaException as error:
            if error.args[0].code() not in tolerated:
                raise KlinkError(f"could not {what} topic {topic}: {error.args[0].str()}") from error
        except concurrent.futures.TimeoutError:
            raise KlinkError(f"could not {what} topic {topic}: the broker did not answer within "
                             f"{timeout_s:.0f} s") from None


#: Topic setting under which the broker stamps every record with the time it appended it: the "ingestion"
#: time observed network delays are measured at.
APPEND_TIME = {"message.timestamp.type": "LogAppendTime"}


def recreate_topics(bootstrap: str, topics: Iterable[str], partitions: int = 1, config: dict | None = None) -> None:
    """Fresh, empty topics: delete any left from an earlier run, then create them (with `config`)."""
    names = list(topics)
    admin = _admin(bootstrap)
    existing = set(admin.list_topics(timeout=10).topics)
    stale = [t for t in names if t in existing]
    if stale:
        _wait_all(admin.delete_topics(stale), "delete", (KafkaError.UNKNOWN_TOPIC_OR_PART,))
        _until(lambda: not set(stale) & set(admin.list_topics(timeout=10).topics), 30, "topic deletion")
    new = [NewTopic(t, num_partitions=partitions, replication_factor=1, config=config or {}) for t in names]
    deadline = time.monotonic() + 30
    while True:  # a just-deleted topic can still be "marked for deletion" for a moment
        try:
            _wait_all(admin.create_topics(new), "create")
            return
        except KlinkError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.5)


def delete_topics(bootstrap: str, topics: Iterable[str]) -> None:
    names = list(topics)
    if names:
        admin = _admin(bootstrap)  # must outlive the futures it returns
        _wait_all(admin.delete_topics(names), "delete", (KafkaError.UNKNOWN_TOPIC_OR_PART,))


def produce_json(bootstrap: str, topic: str, records: Iterable[dict]) -> int:
    producer = Producer({"bootstrap.servers": bootstrap, "linger.ms": 5, "logger": QUIET_CLIENT_LOGGER})
    count = 0
    for record in records:
        producer.produce(topic, json.dumps(record).encode())
        producer.poll(0)
        count += 1
    if producer.flush(30) != 0:
        raise KlinkError(f"could not deliver every record to {topic} within 30 s")
    return count


def consume_json(bootstrap: str, topic: str, done: Callable[[list[dict]], bool], timeout_s: float) -> list[dict]:
    """Read records from the start of topic until done(records) or timeout; returns what was read."""
    consumer = Consumer({
        "bootstrap.servers": bootstrap, "group.id": f"klinkctl-reader-{topic}-{time.time_ns()}",
        "auto.offset.reset": "earliest", "enable.auto.commit": False, "logger": QUIET_CLIENT_LOGGER,
    })
    records: list[dict] = []
    try:
        consumer.subscribe([topic])
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline and not done(records):
            message = consumer.poll(0.5)
            if message is None or message.error():
                continue
            records.append(json.loads(message.value()))
    finally:
        consumer.close()
    return records


def topic_values(bootstrap: str, topic: str, progress: bool = False, batch: int = 20_000) -> Iterator[bytes]:
    """Every event of a topic (partition 0), first to last as of the call: each line of each record value
    (klink-generator packs the events a topic gets in one send burst into one record, one per line); with
    `progress` also the generator's `#progress,<event time>` lines, where they came (they move the watermark)."""
    for message in topic_messages(bootstrap, topic, batch):
        yield from events_of(message.value(), progress)


def topic_messages(bootstrap: str, topic: str, batch: int = 20_000) -> Iterator[Message]:
    """Every record of a topic (partition 0), first to last as of the call."""
    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": f"klinkctl-reader-{time.time_ns()}",
                         "enable.auto.commit": False, "fetch.wait.max.ms": 10, "logger": QUIET_CLIENT_LOGGER})
    try:
        low, high = consumer.get_watermark_offsets(TopicPartition(topic, 0), timeout=10)
        consumer.assign([TopicPartition(topic, 0, low)])
        position = low
        while position < high:
            messages = consumer.consume(min(batch, high - position), timeout=10)
            if not messages:
                raise KlinkError(f"reading {topic}: nothing after offset {position} of {high} within 10 s")
            for message in messages:
                if not message.error():
                    position = message.offset() + 1
                    yield message
    finally:
        consumer.close()


def events_of(value: bytes, progress: bool = False) -> list[bytes]:
    """The events of one record value: one per line (a record of one event has no newline). The generator's
    progress records after its last event (`#progress,<event time>`) are not events."""
    return [line for line in value.split(b"\n") if line and (not line.startswith(b"#")
                                                          or progress and line.startswith(b"#progress,"))]


def json_event_time(value: bytes) -> int:
    """The event time of a JSON event (YSB): its `event_time` field."""
    return json.loads(value)["event_time"]


def ingestion_delays(bootstrap: str, topics: list[str], budget: int = 200_000, chunks: int = 100,
                     event_time: Callable[[bytes], int] = json_event_time) -> np.ndarray:
    """Kafka append time − event time (ms, read from each event of a record's value by `event_time`) of
    events spread evenly over each topic (partition 0): `chunks` runs of consecutive records per topic,
    `budget` events in all, each event read once (on a small topic the runs meet and it is read whole).
    Topics must use APPEND_TIME."""
    per_chunk = max(1, budget // (len(topics) * chunks)) if topics else 0
    # a chunk at a small topic's end would otherwise wait fetch.wait.max.ms (500 ms) for more, 100 times per topic
    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": f"klinkctl-delays-{time.time_ns()}",
                         "enable.auto.commit": False, "fetch.wait.max.ms": 10, "logger": QUIET_CLIENT_LOGGER})
    delays: list[int] = []
    try:
        for topic in topics:
            low, high = consumer.get_watermark_offsets(TopicPartition(topic, 0), timeout=10)
            read_to = low
            for start in np.unique(np.linspace(low, max(low, high - per_chunk), chunks).astype(int)):
                start = max(int(start), read_to)
                if start >= high:
                    break
                consumer.assign([TopicPartition(topic, 0, start)])
                chunk, read_to = _chunk_delays(consumer, per_chunk, event_time, start, high)
                delays += chunk
    finally:
        consumer.close()
    return np.array(delays, dtype=float)


def _chunk_delays(consumer: Consumer, events: int, event_time: Callable[[bytes], int], start: int,
                  high: int) -> tuple[list[int], int]:
    """The delays of about `events` consecutive events from offset `start` (the consumer's position), and the
    offset after the last record read: a few records at a time, since a packed record holds many."""
    delays: list[int] = []
    records, position = 0, start
    while len(delays) < events and records < events and position < high:
        # never ask past the end: consume() waits its whole timeout for records that will not come
        messages = consumer.consume(min(events - len(delays), 20, high - position), timeout=5)
        if not messages:
            break
        records += len(messages)
        for message in messages:
            if not message.error():
                delays += _append_delays(message, event_time)
                position = message.offset() + 1
    return delays, position


def _append_delays(message, event_time: Callable[[bytes], int]) -> list[int]:
    kind, appended_at = message.timestamp()
    if kind != TIMESTAMP_LOG_APPEND_TIME:
        return []
    return [appended_at - event_time(event) for event in events_of(message.value())]


def _until(condition: Callable[[], bool], timeout_s: float, what: str) -> None:
    deadline = time.monotonic() + timeout_s
    while not condition():
        if time.monotonic() > deadline:
            raise KlinkError(f"{what} did not finish within {timeout_s:.0f} s")
        time.sleep(0.2)
