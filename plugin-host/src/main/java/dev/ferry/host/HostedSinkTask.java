package dev.ferry.host;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.metrics.PluginMetrics;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.connect.data.SchemaAndValue;
import org.apache.kafka.connect.header.ConnectHeaders;
import org.apache.kafka.connect.header.Headers;
import org.apache.kafka.connect.runtime.InternalSinkRecord;
import org.apache.kafka.connect.runtime.errors.ErrorReporter;
import org.apache.kafka.connect.runtime.errors.ProcessingContext;
import org.apache.kafka.connect.runtime.errors.Stage;
import org.apache.kafka.connect.runtime.isolation.LoaderSwap;
import org.apache.kafka.connect.sink.ErrantRecordReporter;
import org.apache.kafka.connect.sink.SinkRecord;
import org.apache.kafka.connect.sink.SinkTask;
import org.apache.kafka.connect.sink.SinkTaskContext;
import org.apache.kafka.connect.util.LoggingContext;

import java.io.ByteArrayInputStream;
import java.io.DataInputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;

/**
 * A sink task: Ferry consumes and hands over raw records in batches; they are converted and
 * transformed here with Kafka's own classes, as Java's WorkerSinkTask does, then put. What the
 * task asks of its context (rewinds, pauses, commits, errant records) goes back with each answer.
 */
@SuppressWarnings({"unchecked", "rawtypes"})
final class HostedSinkTask extends HostedTask {
    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(HostedSinkTask.class);
    private final SinkTask task;
    private final Context context;
    /** Records that failed a stage or that the task reported, for Ferry's dead letter queue and error log. */
    private final List<ObjectNode> failed = new ArrayList<>();

    private HostedSinkTask(TaskSetup setup, boolean errantReporter) {
        super(setup);
        this.task = (SinkTask) setup.task;
        this.context = new Context(errantReporter);
    }

    static HostedSinkTask start(Host host, ObjectNode h) throws Exception {
        TaskSetup setup = new TaskSetup(host, h, true);
        HostedSinkTask hosted = new HostedSinkTask(setup, h.path("errantReporter").asBoolean());
        // Ferry writes the dead letter queue and the error log, so failures are collected for it.
        setup.retry.reporters(List.of((ErrorReporter<ConsumerRecord<byte[], byte[]>>) pc -> {
            hosted.fail(pc.original(), pc.error(), pc.stage() + "", pc.executingClass());
            return CompletableFuture.completedFuture(null);
        }));
        try (LoggingContext ignored = LoggingContext.forTask(setup.id); LoaderSwap swap = setup.swap()) {
            hosted.task.initialize(hosted.context);
            hosted.task.start(setup.taskConfig);
            LOG.info("Started {} in the plugin host", hosted.task.getClass().getName());
        } catch (RuntimeException e) {
            setup.close();
            throw e;
        }
        return hosted;
    }

    /** A record that failed {@code stage} (null: reported by the task through its reporter). */
    private synchronized void fail(ConsumerRecord<byte[], byte[]> original, Throwable error, String stage, Class<?> executing) {
        ObjectNode f = Frames.JSON.createObjectNode()
                .put("topic", original.topic())
                .put("partition", original.partition())
                .put("offset", original.offset())
                .put("stage", stage)
                .put("class", executing == null ? null : executing.getName());
        // No stage: the task reported the record itself, which Ferry handles as Java's
        // WorkerErrantRecordReporter does (TASK_PUT, SinkTask).
        f.set("error", Host.error(error));
        failed.add(f);
    }


    @Override
    public Host.Result call(String op, ObjectNode h, byte[] payload) throws Exception {
        try (LoggingContext ignored = LoggingContext.forTask(setup.id); LoaderSwap swap = setup.swap()) {
            switch (op) {
                case "sink.open": {
                    List<TopicPartition> partitions = partitions(h.get("partitions"));
                    context.assignment.addAll(partitions);
                    task.open(partitions);
                    return answer(null);
                }
                case "sink.close": {
                    List<TopicPartition> partitions = partitions(h.get("partitions"));
                    try {
                        task.close(partitions);
                    } finally {
                        context.assignment.removeAll(partitions);
                    }
                    return answer(null);
                }
                case "sink.put":
                    task.put(convert(payload));
                    return answer(null);
                case "sink.preCommit": {
                    Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
                    for (JsonNode o : h.get("offsets")) {
                        offsets.put(new TopicPartition(o.get("topic").asText(), o.get("partition").asInt()),
                                new OffsetAndMetadata(o.get("offset").asLong()));
                    }
                    Map<TopicPartition, OffsetAndMetadata> committable = task.preCommit(offsets);
                    ArrayNode out = Frames.JSON.createArrayNode();
                    if (committable != null) {
                        committable.forEach((tp, om) -> out.addObject()
                                .put("topic", tp.topic()).put("partition", tp.partition()).put("offset", om.offset()));
                    }
                    return answer(out);
                }
                default:
                    throw new IllegalArgumentException("Unknown sink task call " + op);
            }
        }
    }

    private static List<TopicPartition> partitions(JsonNode list) {
        List<TopicPartition> out = new ArrayList<>();
        for (JsonNode p : list) {
            out.add(new TopicPartition(p.get("topic").asText(), p.get("partition").asInt()));
        }
        return out;
    }

    /** The answer with whatever the task asked of its context since the last one. */
    private synchronized Host.Result answer(ArrayNode offsets) {
        ObjectNode body = Frames.JSON.createObjectNode();
        if (offsets != null) {
            body.set("offsets", offsets);
        }
        context.drainInto(body);
        if (!failed.isEmpty()) {
            body.putArray("failed").addAll(failed);
            failed.clear();
        }
        return Host.Result.of(body);
    }

    private List<SinkRecord> convert(byte[] payload) throws Exception {
        DataInputStream in = new DataInputStream(new ByteArrayInputStream(payload));
        int count = in.readInt();
        List<SinkRecord> batch = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            String topic = Wire.string(in);
            int partition = in.readInt();
            long offset = in.readLong();
            long timestamp = in.readLong();
            TimestampType timestampType = timestampType(in.readByte());
            byte[] key = Wire.bytes(in);
            byte[] value = Wire.bytes(in);
            int headerCount = in.readInt();
            RecordHeaders headers = new RecordHeaders();
            for (int j = 0; j < headerCount; j++) {
                headers.add(Wire.string(in), Wire.bytes(in));
            }
            ConsumerRecord<byte[], byte[]> msg = new ConsumerRecord<>(topic, partition, offset, timestamp, timestampType,
                    key == null ? -1 : key.length, value == null ? -1 : value.length, key, value, headers, Optional.empty());
            SinkRecord record = convertAndTransform(msg);
            if (record != null) {
                batch.add(record);
            }
        }
        return batch;
    }

    /** Ferry's codes: 0 none, 1 create time, 2 log append time. */
    private static TimestampType timestampType(byte code) {
        return switch (code) {
            case 1 -> TimestampType.CREATE_TIME;
            case 2 -> TimestampType.LOG_APPEND_TIME;
            default -> TimestampType.NO_TIMESTAMP_TYPE;
        };
    }

    private SinkRecord convertAndTransform(ConsumerRecord<byte[], byte[]> msg) {
        ProcessingContext<ConsumerRecord<byte[], byte[]>> pc = new ProcessingContext<>(msg);
        SchemaAndValue key = (SchemaAndValue) setup.retry.execute(pc,
                () -> setup.keyConverter.toConnectData(msg.topic(), msg.headers(), msg.key()),
                Stage.KEY_CONVERTER, setup.keyConverter.getClass());
        SchemaAndValue value = (SchemaAndValue) setup.retry.execute(pc,
                () -> setup.valueConverter.toConnectData(msg.topic(), msg.headers(), msg.value()),
                Stage.VALUE_CONVERTER, setup.valueConverter.getClass());
        Headers headers = (Headers) setup.retry.execute(pc, () -> convertHeaders(msg),
                Stage.HEADER_CONVERTER, setup.headerConverter.getClass());
        if (pc.failed()) {
            return null;
        }
        Long timestamp = msg.timestamp() < 0 ? null : msg.timestamp();
        SinkRecord original = new SinkRecord(msg.topic(), msg.partition(), key.schema(), key.value(),
                value.schema(), value.value(), msg.offset(), timestamp, msg.timestampType(), headers);
        SinkRecord transformed = (SinkRecord) setup.chain.apply(pc, original);
        return transformed == null ? null : new InternalSinkRecord(pc, transformed);
    }

    private Headers convertHeaders(ConsumerRecord<byte[], byte[]> msg) {
        Headers result = new ConnectHeaders();
        for (org.apache.kafka.common.header.Header h : msg.headers()) {
            result.add(h.key(), setup.headerConverter.toConnectHeader(msg.topic(), h.key(), h.value()));
        }
        return result;
    }



    /** Java's WorkerSinkTaskContext, with the requests recorded for Ferry's consumer. */
    private final class Context implements SinkTaskContext {
        final Set<TopicPartition> assignment = new HashSet<>();
        private final Map<TopicPartition, Long> offsets = new HashMap<>();
        private final Set<TopicPartition> pause = new HashSet<>();
        private final Set<TopicPartition> resume = new HashSet<>();
        private long timeoutMs = -1;
        private boolean commitRequested;
        private final ErrantRecordReporter reporter;

        Context(boolean errantReporter) {
            reporter = errantReporter ? this::report : null;
        }

        private Future<Void> report(SinkRecord record, Throwable error) {
            if (record instanceof InternalSinkRecord internal) {
                ConsumerRecord<byte[], byte[]> original = internal.context().original();
                fail(original, error, null, null);
            } else {
                ConsumerRecord<byte[], byte[]> original = new ConsumerRecord<>(record.originalTopic(),
                        record.originalKafkaPartition(), record.originalKafkaOffset(), null, null);
                fail(original, error, null, null);
            }
            return CompletableFuture.completedFuture(null);
        }

        @Override
        public Map<String, String> configs() {
            return setup.taskConfig;
        }

        @Override
        public synchronized void offset(Map<TopicPartition, Long> offsets) {
            this.offsets.putAll(offsets);
        }

        @Override
        public synchronized void offset(TopicPartition tp, long offset) {
            offsets.put(tp, offset);
        }

        @Override
        public synchronized void timeout(long timeoutMs) {
            this.timeoutMs = timeoutMs;
        }

        @Override
        public Set<TopicPartition> assignment() {
            return new HashSet<>(assignment);
        }

        @Override
        public synchronized void pause(TopicPartition... partitions) {
            check(partitions);
            resume.removeAll(Arrays.asList(partitions));
            pause.addAll(Arrays.asList(partitions));
        }

        @Override
        public synchronized void resume(TopicPartition... partitions) {
            check(partitions);
            pause.removeAll(Arrays.asList(partitions));
            resume.addAll(Arrays.asList(partitions));
        }

        private void check(TopicPartition[] partitions) {
            for (TopicPartition tp : partitions) {
                if (!assignment.contains(tp)) {
                    throw new IllegalStateException("SinkTasks may not pause or resume partitions that are not currently assigned to them: " + tp);
                }
            }
        }

        @Override
        public synchronized void requestCommit() {
            commitRequested = true;
        }

        @Override
        public ErrantRecordReporter errantRecordReporter() {
            return reporter;
        }

        @Override
        public PluginMetrics pluginMetrics() {
            return setup.host.metrics.connectorPluginMetrics(setup.id.toString());
        }

        synchronized void drainInto(ObjectNode body) {
            if (!offsets.isEmpty()) {
                ArrayNode list = body.putArray("rewind");
                offsets.forEach((tp, o) -> list.addObject().put("topic", tp.topic()).put("partition", tp.partition()).put("offset", o));
                offsets.clear();
            }
            if (!pause.isEmpty()) {
                body.set("pause", tps(pause));
                pause.clear();
            }
            if (!resume.isEmpty()) {
                body.set("resume", tps(resume));
                resume.clear();
            }
            if (timeoutMs >= 0) {
                body.put("timeoutMs", timeoutMs);
                timeoutMs = -1;
            }
            if (commitRequested) {
                body.put("requestCommit", true);
                commitRequested = false;
            }
        }

        private ArrayNode tps(Collection<TopicPartition> set) {
            ArrayNode list = Frames.JSON.createArrayNode();
            set.forEach(tp -> list.addObject().put("topic", tp.topic()).put("partition", tp.partition()));
            return list;
        }
    }
}
