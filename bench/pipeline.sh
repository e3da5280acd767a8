#!/usr/bin/env bash
# Measures the quickstart pipeline (file source -> Kafka -> file sink, StringConverter) in
# lines per second with the release binary. Usage: bench/pipeline.sh [lines] (default 1000000).
# scripts/bench compares Ferry with Java Connect and the raw client.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
N=${1:-1000000}
cd "$ROOT"
. scripts/build-env
scripts/kafka start
cargo build --release -p ferry-cli 2>/dev/null
WORK=$ROOT/tmp/bench-pipeline
rm -rf "$WORK" && mkdir -p "$WORK" && cd "$WORK"
awk -v n="$N" 'BEGIN { for (i = 0; i < n; i++) printf "line %09d %s\n", i, "................................................................................" }' > in.txt
TOPIC=bench-$(date +%s)
cat > worker.properties <<PROPS
bootstrap.servers=127.0.0.1:${KAFKA_PORT:-9092}
key.converter=org.apache.kafka.connect.storage.StringConverter
value.converter=org.apache.kafka.connect.storage.StringConverter
offset.storage.file.filename=$WORK/connect.offsets
offset.flush.interval.ms=10000
listeners=http://127.0.0.1:18083
PROPS
printf 'name=src\nconnector.class=FileStreamSource\nfile=%s\ntopic=%s\n' "$WORK/in.txt" "$TOPIC" > src.properties
printf 'name=sink\nconnector.class=FileStreamSink\nfile=%s\ntopics=%s\n' "$WORK/out.txt" "$TOPIC" > sink.properties
start=$(date +%s.%N)
RUST_LOG=warn "$ROOT/target/release/ferry" standalone worker.properties src.properties sink.properties 2> ferry.log &
FERRY=$!
trap 'kill $FERRY 2>/dev/null || true' EXIT
until [ -f out.txt ] && [ "$(wc -l < out.txt)" -ge "$N" ]; do sleep 0.2; done
end=$(date +%s.%N)
kill -TERM $FERRY; wait $FERRY || true
awk -v n="$N" -v s="$start" -v e="$end" 'BEGIN { printf "%d lines in %.2f s (includes start-up): %.0f lines/s\n", n, e - s, n / (e - s) }'
