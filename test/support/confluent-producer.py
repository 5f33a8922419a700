#!/usr/bin/python3
# Test support: an idempotent producer on librdkafka through python3-confluent-kafka (Debian package, /usr/bin/python3).
# Usage: confluent-producer.py BOOTSTRAP TOPIC COUNT PREFIX [RATE_PER_SEC] [CONFIG_JSON]
# Produces values PREFIX-0 .. PREFIX-(COUNT-1) (key = value) and prints one JSON line per delivery report:
# {"value": ..., "partition": p, "offset": o} when acknowledged, {"value": ..., "error": "..."} when not.
# The last line is {"done": true, "acked": n, "failed": m}. SIGTERM stops producing new values early; whatever
# was produced is still flushed. Exit code 0 only if every produced record was acknowledged.
import json
import signal
import sys
import time

from confluent_kafka import Producer

bootstrap, topic, count, prefix = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
rate = float(sys.argv[5]) if len(sys.argv) > 5 else 0.0
extra = json.loads(sys.argv[6]) if len(sys.argv) > 6 else {}

config = {
    "bootstrap.servers": bootstrap,
    "enable.idempotence": True,
    "linger.ms": 5,
    "message.timeout.ms": 300000,
    "socket.timeout.ms": 10000,
    "topic.metadata.refresh.interval.ms": 1000,
}
config.update(extra)
producer = Producer(config)
acked = 0
failed = 0
produced = 0
stopping = False


def stop(_signum, _frame):
    global stopping
    stopping = True


signal.signal(signal.SIGTERM, stop)


def report(err, msg):
    global acked, failed
    value = msg.value().decode()
    if err is None:
        acked += 1
        print(json.dumps({"value": value, "partition": msg.partition(), "offset": msg.offset()}), flush=True)
    else:
        failed += 1
        print(json.dumps({"value": value, "error": str(err)}), flush=True)


started = time.time()
for i in range(count):
    if stopping:
        break
    value = f"{prefix}-{i}"
    while True:
        try:
            producer.produce(topic, key=value, value=value, on_delivery=report)
            produced += 1
            break
        except BufferError:
            producer.poll(0.05)
    producer.poll(0)
    if rate > 0:
        ahead = (i + 1) / rate - (time.time() - started)
        if ahead > 0:
            producer.poll(ahead)
remaining = producer.flush(600)
print(json.dumps({"done": True, "produced": produced, "acked": acked, "failed": failed, "unflushed": remaining}), flush=True)
sys.exit(0 if failed == 0 and remaining == 0 and acked == produced else 1)
