// Container healthcheck: the broker's own GET /healthz (200 only while it runs with a healthy ZooKeeper session).
const port = process.env.KAFKA_HTTP_PORT || '8780';
const timer = setTimeout(() => process.exit(1), 2500);
try {
  const res = await fetch(`http://127.0.0.1:${port}/healthz`);
  process.exit(res.ok ? 0 : 1);
} catch {
  process.exit(1);
} finally {
  clearTimeout(timer);
}
