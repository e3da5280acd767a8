package dev.ferry.host;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.metrics.PluginMetrics;
import org.apache.kafka.connect.header.Header;
import org.apache.kafka.connect.runtime.WorkerTransactionContext;
import org.apache.kafka.connect.runtime.errors.LogReporter;
import org.apache.kafka.connect.runtime.errors.ProcessingContext;
import org.apache.kafka.connect.runtime.errors.Stage;
import org.apache.kafka.connect.runtime.isolation.LoaderSwap;
import org.apache.kafka.connect.source.SourceRecord;
import org.apache.kafka.connect.source.SourceTask;
import org.apache.kafka.connect.source.SourceTaskContext;
import org.apache.kafka.connect.source.TransactionContext;
import org.apache.kafka.connect.storage.OffsetStorageReader;
import org.apache.kafka.connect.util.LoggingContext;

import java.io.IOException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A source task: poll, then transform and convert with Kafka's own classes, as Java's
 * AbstractWorkerSourceTask does; Ferry produces the bytes and reports acknowledgements back,
 * which become commitRecord calls with the pre-transformation record.
 */
@SuppressWarnings("unchecked")
final class HostedSourceTask extends HostedTask {
    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(HostedSourceTask.class);
    private final SourceTask task;
    /** Records handed to Ferry and not yet acknowledged, by the id Ferry will name. */
    private final Map<Long, SourceRecord> inFlight = new HashMap<>();
    private long nextId;
    /** With transaction.boundary=connector: what the task asks, reported with each poll. */
    private final WorkerTransactionContext transactions;

    private HostedSourceTask(TaskSetup setup, boolean transactionContext) {
        super(setup);
        this.task = (SourceTask) setup.task;
        this.transactions = transactionContext ? new WorkerTransactionContext() : null;
    }

    static HostedSourceTask start(Host host, ObjectNode h) throws Exception {
        TaskSetup setup = new TaskSetup(host, h, false);
        HostedSourceTask hosted = new HostedSourceTask(setup, h.path("transactionContext").asBoolean(false));
        if (setup.connectorConfig.enableErrorLog()) {
            setup.retry.reporters(List.of(new LogReporter.Source(setup.id, setup.connectorConfig, setup.errorMetrics)));
        }
        OffsetStorageReader reader = new HostOffsetReader(host, setup.id.connector(), setup.id.toString());
        try (LoggingContext ignored = LoggingContext.forTask(setup.id); LoaderSwap swap = setup.swap()) {
            hosted.task.initialize(new SourceTaskContext() {
                @Override
                public Map<String, String> configs() {
                    return setup.taskConfig;
                }

                @Override
                public OffsetStorageReader offsetStorageReader() {
                    return reader;
                }

                @Override
                public TransactionContext transactionContext() {
                    return hosted.transactions;
                }

                @Override
                public PluginMetrics pluginMetrics() {
                    return host.metrics.connectorPluginMetrics(setup.id.toString());
                }
            });
            hosted.task.start(setup.taskConfig);
            LOG.info("Started {} in the plugin host", hosted.task.getClass().getName());
        } catch (RuntimeException e) {
            setup.close();
            throw e;
        }
        return hosted;
    }


    @Override
    public Host.Result call(String op, ObjectNode h, byte[] payload) throws Exception {
        try (LoggingContext ignored = LoggingContext.forTask(setup.id); LoaderSwap swap = setup.swap()) {
            acknowledge(h.get("acks"));
            switch (op) {
                case "source.poll":
                    return poll();
                case "source.commit":
                    task.commit();
                    return Host.Result.empty();
                case "source.acks":
                    return Host.Result.empty();
                default:
                    throw new IllegalArgumentException("Unknown source task call " + op);
            }
        }
    }

    /** commitRecord for each record Ferry saw acknowledged (with metadata) or dropped (without). */
    private void acknowledge(JsonNode acks) throws InterruptedException {
        if (acks == null) {
            return;
        }
        for (JsonNode a : acks) {
            SourceRecord record = inFlight.remove(a.get("id").asLong());
            if (record == null) {
                continue;
            }
            RecordMetadata metadata = null;
            if (a.hasNonNull("offset")) {
                metadata = new RecordMetadata(new TopicPartition(a.get("topic").asText(), a.get("partition").asInt()),
                        a.get("offset").asLong(), 0, a.path("timestamp").asLong(-1), -1, -1);
            }
            task.commitRecord(record, metadata);
        }
    }

    private Host.Result poll() throws Exception {
        List<SourceRecord> records = task.poll();
        Wire.Out out = new Wire.Out();
        ObjectNode answer = Frames.JSON.createObjectNode();
        ArrayNode boundaries = answer.putArray("boundaries");
        int count = 0;
        out.data.writeInt(0);
        if (records != null) {
            for (SourceRecord record : records) {
                if (convert(record, out)) {
                    count++;
                }
                // As Java's worker asks after each record, sent or dropped: the request takes
                // effect after the last record sent so far (-1: before the batch).
                if (transactions != null) {
                    if (transactions.shouldAbortOn(record)) {
                        boundaries.addArray().add(count - 1).add("abort");
                    } else if (transactions.shouldCommitOn(record)) {
                        boundaries.addArray().add(count - 1).add("commit");
                    }
                }
            }
        }
        if (transactions != null) {
            if (transactions.shouldAbortBatch()) {
                answer.put("batch", "abort");
            } else if (transactions.shouldCommitBatch()) {
                answer.put("batch", "commit");
            }
        }
        byte[] payload = out.toByteArray();
        payload[0] = (byte) (count >>> 24);
        payload[1] = (byte) (count >>> 16);
        payload[2] = (byte) (count >>> 8);
        payload[3] = (byte) count;
        return new Host.Result(answer.put("count", count), payload);
    }

    /** Transforms and converts one record into the batch; false when it was dropped. */
    private boolean convert(SourceRecord record, Wire.Out out) throws IOException, InterruptedException {
        ProcessingContext<SourceRecord> context = new ProcessingContext<>(record);
        SourceRecord t = (SourceRecord) setup.chain.apply(context, record);
        if (t == null || context.failed()) {
            task.commitRecord(record, null);
            return false;
        }
        RecordHeaders headers = (RecordHeaders) setup.retry.execute(context, () -> convertHeaders(t),
                Stage.HEADER_CONVERTER, setup.headerConverter.getClass());
        byte[] key = (byte[]) setup.retry.execute(context,
                () -> setup.keyConverter.fromConnectData(t.topic(), headers, t.keySchema(), t.key()),
                Stage.KEY_CONVERTER, setup.keyConverter.getClass());
        byte[] value = (byte[]) setup.retry.execute(context,
                () -> setup.valueConverter.fromConnectData(t.topic(), headers, t.valueSchema(), t.value()),
                Stage.VALUE_CONVERTER, setup.valueConverter.getClass());
        if (context.failed()) {
            task.commitRecord(record, null);
            return false;
        }
        long id = nextId++;
        inFlight.put(id, record);
        out.data.writeLong(id);
        out.string(t.topic());
        out.data.writeInt(t.kafkaPartition() == null ? -1 : t.kafkaPartition());
        out.data.writeLong(t.timestamp() == null ? Long.MIN_VALUE : t.timestamp());
        out.bytes(key);
        out.bytes(value);
        org.apache.kafka.common.header.Header[] array = headers == null ? new org.apache.kafka.common.header.Header[0] : headers.toArray();
        out.data.writeInt(array.length);
        for (org.apache.kafka.common.header.Header header : array) {
            out.string(header.key());
            out.bytes(header.value());
        }
        out.bytes(OffsetJson.encode(t.sourcePartition()));
        out.bytes(OffsetJson.encode(t.sourceOffset()));
        return true;
    }

    private RecordHeaders convertHeaders(SourceRecord record) {
        RecordHeaders result = new RecordHeaders();
        if (record.headers() != null) {
            for (Header header : record.headers()) {
                byte[] raw = setup.headerConverter.fromConnectHeader(record.topic(), header.key(), header.schema(), header.value());
                result.add(header.key(), raw);
            }
        }
        return result;
    }


}
