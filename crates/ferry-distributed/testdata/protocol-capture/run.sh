#!/usr/bin/env bash
# Regenerates the golden files in ../protocol from Apache Kafka Connect's own classes:
#   fixtures.json        metadata/assignment bytes and their decoded fields (Capture.java)
#   assignor_rounds.json scenarios replayed through IncrementalCooperativeAssignor (AssignorCapture.java)
# Needs a JDK (javac + java, 17 was used) and the Connect jars, which scripts/java-connect fetches
# into ~/.cache/ferry/connect-<version>/libs (CONNECT_VERSION, default 4.1.1).
# Usage: crates/ferry-distributed/testdata/protocol-capture/run.sh
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../../../.." && pwd)
"$ROOT/scripts/java-connect" fetch
LIBS=$("$ROOT/scripts/java-connect" libs)

BUILD=$(mktemp -d)
trap 'rm -rf "$BUILD"' EXIT
OUT=$HERE/../protocol
mkdir -p "$OUT"
javac -encoding UTF-8 -cp "$LIBS/*" -d "$BUILD" "$HERE/Capture.java" "$HERE/AssignorCapture.java"
java -cp "$BUILD:$LIBS/*" Capture > "$OUT/fixtures.json.tmp"
mv "$OUT/fixtures.json.tmp" "$OUT/fixtures.json"
java -cp "$BUILD:$LIBS/*" org.apache.kafka.connect.runtime.distributed.AssignorCapture > "$OUT/assignor_rounds.json.tmp"
mv "$OUT/assignor_rounds.json.tmp" "$OUT/assignor_rounds.json"
echo "wrote $(grep -c '"name"' "$OUT/fixtures.json") codec cases and $(grep -c '"max_delay"' "$OUT/assignor_rounds.json") assignor scenarios (Java $(java -version 2>&1 | head -1))"
