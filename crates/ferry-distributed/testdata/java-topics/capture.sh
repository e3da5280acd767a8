#!/usr/bin/env bash
# Captures the internal topics written by a real Java Kafka Connect (4.1.1) distributed worker, as
# fixtures for ferry-distributed's config/status topic readers (tests/java_topics.rs).
#
#   crates/ferry-distributed/testdata/java-topics/capture.sh
#
# Needs: a broker (scripts/kafka start), Java Connect's jars (scripts/java-connect fetch), a JDK
# (java + javac), curl and jq. It runs one worker against fresh topics (a unique suffix per run),
# drives it through the REST API, stops it, and dumps the three internal topics next to this script:
#   config.jsonl, status.jsonl, offsets.jsonl   one record per line, in partition then offset order:
#     {"partition":p,"offset":o,"key":"<key as UTF-8>","value":"<raw value bytes as UTF-8>"|null}
#   worker.properties                           the worker's configuration (topic names differ per run)
#   capture.log                                 what was done, and the REST answers
# The four topics of the run (config, offsets, status and the connectors' data topic) are deleted
# afterwards unless KEEP_TOPICS=1.
# The worker runs with exactly.once.source.support=enabled so that the config topic also gets
# tasks-fencing-* (task count) records and transactional writes.
#
# Environment: BOOTSTRAP (127.0.0.1:9092), REST_PORT (18083), KEEP_WORK=1 keeps the work directory,
# KEEP_TOPICS=1 keeps the topics.
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../../../.." && pwd)
BOOTSTRAP=${BOOTSTRAP:-127.0.0.1:9092}
REST_PORT=${REST_PORT:-18083}
URL=http://127.0.0.1:$REST_PORT
LIBS=$("$ROOT/scripts/java-connect" libs)
SUFFIX=$(date +%s)-$$
WORK=$(mktemp -d /tmp/ferry-java-topics.XXXXXX)
CONFIG_TOPIC=ferry-capture-configs-$SUFFIX
OFFSET_TOPIC=ferry-capture-offsets-$SUFFIX
STATUS_TOPIC=ferry-capture-status-$SUFFIX
DATA_TOPIC=ferry-capture-data-$SUFFIX
LOG=$HERE/capture.log
JAVA_PID=

log() { echo "capture: $*" | tee -a "$LOG" >&2; }

cleanup() {
  if [ -n "$JAVA_PID" ] && kill -0 "$JAVA_PID" 2>/dev/null; then
    kill "$JAVA_PID" 2>/dev/null || true
    wait "$JAVA_PID" 2>/dev/null || true
  fi
  if [ "${KEEP_WORK:-0}" = 1 ]; then log "work directory kept: $WORK"; else rm -rf "$WORK"; fi
}
trap cleanup EXIT

: > "$LOG"
"$ROOT/scripts/java-connect" fetch
"$ROOT/scripts/kafka" status >/dev/null 2>&1 || { log "no broker: run scripts/kafka start"; exit 1; }
if (exec 3<>"/dev/tcp/127.0.0.1/$REST_PORT") 2>/dev/null; then log "port $REST_PORT is taken"; exit 1; fi

# --- the dump tool: reads every partition of a topic from the beginning to its end offsets ----------
mkdir -p "$WORK/dump"
cat > "$WORK/dump/DumpTopic.java" <<'JAVA'
import com.fasterxml.jackson.databind.ObjectMapper;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.*;

public class DumpTopic {
    public static void main(String[] args) throws Exception {
        if (args[0].equals("--delete")) { // --delete bootstrap topic...
            Properties admin = new Properties();
            admin.put("bootstrap.servers", args[1]);
            try (org.apache.kafka.clients.admin.Admin a = org.apache.kafka.clients.admin.Admin.create(admin)) {
                a.deleteTopics(Arrays.asList(args).subList(2, args.length)).all().get();
            }
            return;
        }
        String bootstrap = args[0], topic = args[1], outFile = args[2];
        Properties props = new Properties();
        props.put("bootstrap.servers", bootstrap);
        props.put("enable.auto.commit", "false");
        props.put("isolation.level", "read_committed");
        props.put("key.deserializer", ByteArrayDeserializer.class.getName());
        props.put("value.deserializer", ByteArrayDeserializer.class.getName());
        ObjectMapper mapper = new ObjectMapper();
        PrintStream out = new PrintStream(new java.io.FileOutputStream(outFile), false, "UTF-8");
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(props)) {
            List<TopicPartition> parts = new ArrayList<>();
            for (PartitionInfo p : consumer.partitionsFor(topic)) parts.add(new TopicPartition(topic, p.partition()));
            parts.sort(Comparator.comparingInt(TopicPartition::partition));
            consumer.assign(parts);
            consumer.seekToBeginning(parts);
            Map<TopicPartition, Long> end = consumer.endOffsets(parts);
            Map<Integer, List<ConsumerRecord<byte[], byte[]>>> byPartition = new TreeMap<>();
            long deadline = System.currentTimeMillis() + 60_000;
            while (true) {
                boolean done = true;
                for (TopicPartition tp : parts) if (consumer.position(tp) < end.get(tp)) done = false;
                if (done) break;
                if (System.currentTimeMillis() > deadline) throw new IllegalStateException("timed out reading " + topic);
                for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(500)))
                    byPartition.computeIfAbsent(r.partition(), k -> new ArrayList<>()).add(r);
            }
            for (List<ConsumerRecord<byte[], byte[]>> records : byPartition.values()) {
                for (ConsumerRecord<byte[], byte[]> r : records) {
                    Map<String, Object> line = new LinkedHashMap<>();
                    line.put("partition", r.partition());
                    line.put("offset", r.offset());
                    line.put("key", r.key() == null ? null : new String(r.key(), StandardCharsets.UTF_8));
                    line.put("value", r.value() == null ? null : new String(r.value(), StandardCharsets.UTF_8));
                    out.println(mapper.writeValueAsString(line));
                }
            }
        }
        out.close();
    }
}
JAVA
javac -d "$WORK/dump" -cp "$LIBS/*" "$WORK/dump/DumpTopic.java"

# --- the worker --------------------------------------------------------------------------------------
cat > "$WORK/worker.properties" <<PROPS
bootstrap.servers=$BOOTSTRAP
group.id=ferry-capture-$SUFFIX
config.storage.topic=$CONFIG_TOPIC
config.storage.replication.factor=1
offset.storage.topic=$OFFSET_TOPIC
offset.storage.replication.factor=1
offset.storage.partitions=5
status.storage.topic=$STATUS_TOPIC
status.storage.replication.factor=1
status.storage.partitions=5
key.converter=org.apache.kafka.connect.json.JsonConverter
value.converter=org.apache.kafka.connect.json.JsonConverter
listeners=http://127.0.0.1:$REST_PORT
rest.advertised.host.name=127.0.0.1
rest.advertised.port=$REST_PORT
offset.flush.interval.ms=1000
scheduled.rebalance.max.delay.ms=0
exactly.once.source.support=enabled
plugin.discovery=only_scan
PROPS
cp "$WORK/worker.properties" "$HERE/worker.properties"

log "suffix $SUFFIX; starting Java Connect (log: $WORK/connect.log)"
(cd "$WORK" && CONNECT_LOG_FILE="$WORK/connect.log" exec "$ROOT/scripts/java-connect" distributed "$WORK/worker.properties") \
  >"$WORK/connect.out" 2>&1 &
JAVA_PID=$!

# --- REST helpers ------------------------------------------------------------------------------------
rest() { # method path [json body]
  local method=$1 path=$2 body=${3:-} code
  if [ -n "$body" ]; then
    code=$(curl -s -o "$WORK/answer" -w '%{http_code}' -X "$method" -H 'Content-Type: application/json' --data "$body" "$URL$path")
  else
    code=$(curl -s -o "$WORK/answer" -w '%{http_code}' -X "$method" "$URL$path")
  fi
  echo "$method $path -> $code $(head -c 600 "$WORK/answer")" >> "$LOG"
  case $code in 2*) ;; *) log "$method $path failed with $code: $(cat "$WORK/answer")"; exit 1 ;; esac
}

wait_for() { # description seconds command...
  local what=$1 secs=$2; shift 2
  local until=$((SECONDS + secs))
  while ! "$@" >/dev/null 2>&1; do
    kill -0 "$JAVA_PID" 2>/dev/null || { log "Java Connect died; see $WORK/connect.log"; tail -50 "$WORK/connect.log" >&2; exit 1; }
    [ $SECONDS -lt "$until" ] || { log "timed out waiting for $what"; tail -50 "$WORK/connect.log" >&2; exit 1; }
    sleep 0.5
  done
  log "ok: $what"
}

rest_up() { curl -sf "$URL/connectors" ; }
# state_is connector STATE [task STATE]: the connector has that state and every task the task state
state_is() {
  local c=$1 want=$2 task_want=${3:-} s
  s=$(curl -sf "$URL/connectors/$c/status") || return 1
  [ "$(jq -r .connector.state <<<"$s")" = "$want" ] || return 1
  [ -z "$task_want" ] && return 0
  [ "$(jq '.tasks | length' <<<"$s")" -gt 0 ] || return 1
  [ "$(jq --arg w "$task_want" '[.tasks[] | select(.state != $w)] | length' <<<"$s")" = 0 ]
}
no_tasks() { [ "$(curl -sf "$URL/connectors/$1/status" | jq '.tasks | length')" = 0 ]; }
lines_in() { [ -f "$1" ] && [ "$(wc -l < "$1")" -ge "$2" ]; }
gone() { [ "$(curl -s -o /dev/null -w '%{http_code}' "$URL/connectors/$1")" = 404 ]; }

wait_for "REST up" 120 rest_up

# --- the scenario ------------------------------------------------------------------------------------
printf 'alpha\nbeta\ngamma\ndelta\n' > "$WORK/in.txt"

# A source (hyphenated name) whose config has characters JSON must escape.
rest POST /connectors "$(jq -n --arg file "$WORK/in.txt" --arg topic "$DATA_TOPIC" '{
  name: "file-src",
  config: {
    "connector.class": "org.apache.kafka.connect.file.FileStreamSourceConnector",
    "tasks.max": "1", file: $file, topic: $topic,
    "ferry.capture.note": "quote \" backslash \\ tab \t newline \n bell \u0007 e-acute \u00e9 euro \u20ac emoji \ud83d\ude00"
  }}')"
# A sink with one task, later stopped and its topics reset.
rest POST /connectors "$(jq -n --arg file "$WORK/out-1.txt" --arg topic "$DATA_TOPIC" '{
  name: "file-sink",
  config: {"connector.class": "FileStreamSink", "tasks.max": "1", file: $file, topics: $topic}}')"
# A sink with two tasks, later restarted, patched and deleted.
rest PUT /connectors/sink-two/config "$(jq -n --arg file "$WORK/out-2.txt" --arg topic "$DATA_TOPIC" '{
  "connector.class": "FileStreamSink", "tasks.max": "2", file: $file, topics: $topic}')"

wait_for "file-src RUNNING" 120 state_is file-src RUNNING RUNNING
wait_for "file-sink RUNNING" 120 state_is file-sink RUNNING RUNNING
wait_for "sink-two RUNNING" 120 state_is sink-two RUNNING RUNNING
wait_for "file-sink wrote 4 lines" 120 lines_in "$WORK/out-1.txt" 4
wait_for "sink-two wrote 4 lines" 120 lines_in "$WORK/out-2.txt" 4
sleep 3 # the source's offsets get flushed and topic records written

rest PUT /connectors/file-src/pause
wait_for "file-src PAUSED" 60 state_is file-src PAUSED PAUSED
rest PUT /connectors/file-src/resume
wait_for "file-src RUNNING again" 60 state_is file-src RUNNING RUNNING

printf 'epsilon\n' >> "$WORK/in.txt"
wait_for "sink-two wrote 5 lines" 60 lines_in "$WORK/out-2.txt" 5

rest PUT /connectors/file-sink/stop
wait_for "file-sink STOPPED" 60 state_is file-sink STOPPED
wait_for "file-sink has no tasks" 60 no_tasks file-sink
rest PUT /connectors/file-sink/topics/reset

rest POST '/connectors/sink-two/restart?includeTasks=true&onlyFailed=false'
sleep 2
wait_for "sink-two RUNNING after restart" 60 state_is sink-two RUNNING RUNNING

rest PATCH /connectors/sink-two/config '{"ferry.capture.patched":"yes"}'
sleep 2
wait_for "sink-two RUNNING after patch" 60 state_is sink-two RUNNING RUNNING

rest PUT '/admin/loggers/org.apache.kafka.connect.file?scope=cluster' '{"level":"DEBUG"}'

rest DELETE /connectors/sink-two
wait_for "sink-two deleted" 60 gone sink-two
sleep 5 # the leader's status clean-up and the topic tombstones

rest GET /connectors/file-src/topics
rest GET /connectors/file-sink/topics
rest GET '/connectors?expand=status'

log "stopping Java Connect"
kill "$JAVA_PID"
wait "$JAVA_PID" 2>/dev/null || true
JAVA_PID=

for pair in "config:$CONFIG_TOPIC" "status:$STATUS_TOPIC" "offsets:$OFFSET_TOPIC"; do
  name=${pair%%:*}; topic=${pair#*:}
  java -cp "$WORK/dump:$LIBS/*" -Dlog4j2.level=WARN DumpTopic "$BOOTSTRAP" "$topic" "$HERE/$name.jsonl.tmp" >>"$WORK/dump.log" 2>&1
  mv "$HERE/$name.jsonl.tmp" "$HERE/$name.jsonl"
  log "$name.jsonl: $(wc -l < "$HERE/$name.jsonl") records from $topic"
done
if [ "${KEEP_TOPICS:-0}" != 1 ]; then
  java -cp "$WORK/dump:$LIBS/*" DumpTopic --delete "$BOOTSTRAP" "$CONFIG_TOPIC" "$OFFSET_TOPIC" "$STATUS_TOPIC" "$DATA_TOPIC" \
    >>"$WORK/dump.log" 2>&1 || log "could not delete the topics (see $WORK/dump.log)"
fi
log "done"
