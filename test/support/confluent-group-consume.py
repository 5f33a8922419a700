"""Test support: a confluent-kafka (librdkafka) consumer group member reading topics to their end.

Usage: python3 confluent-group-consume.py BOOTSTRAP GROUP EXPECTED TOPIC...
Subscribes to the topics in GROUP, reads until EXPECTED records arrived (or 60 s passed), commits
synchronously, and prints one JSON line per record ({"topic","partition","offset","key","value"},
key and value hex-encoded) followed by a summary line {"done": count}. Exit code 0 when EXPECTED arrived.
"""
import json
import sys
import time

from confluent_kafka import Consumer, KafkaException


def main() -> int:
    bootstrap, group, expected, topics = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4:]
    consumer = Consumer({
        "bootstrap.servers": bootstrap,
        "group.id": group,
        "auto.offset.reset": "earliest",
        "enable.auto.commit": False,
        "session.timeout.ms": 6000,
        "heartbeat.interval.ms": 500,
    })
    consumer.subscribe(topics)
    count = 0
    deadline = time.monotonic() + 60
    try:
        while count < expected and time.monotonic() < deadline:
            msg = consumer.poll(0.5)
            if msg is None:
                continue
            if msg.error():
                raise KafkaException(msg.error())
            count += 1
            print(json.dumps({
                "topic": msg.topic(),
                "partition": msg.partition(),
                "offset": msg.offset(),
                "key": (msg.key() or b"").hex(),
                "value": (msg.value() or b"").hex(),
            }))
        if count > 0:
            consumer.commit(asynchronous=False)
    finally:
        consumer.close()
    print(json.dumps({"done": count}))
    return 0 if count == expected else 1


if __name__ == "__main__":
    sys.exit(main())
