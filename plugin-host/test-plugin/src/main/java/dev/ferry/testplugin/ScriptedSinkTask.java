package dev.ferry.testplugin;

import java.io.BufferedWriter;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.nio.file.StandardOpenOption;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;

import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.errors.DataException;
import org.apache.kafka.connect.errors.RetriableException;
import org.apache.kafka.connect.sink.ErrantRecordReporter;
import org.apache.kafka.connect.sink.SinkRecord;
import org.apache.kafka.connect.sink.SinkTask;

/**
 * The task of {@link ScriptedSinkConnector}. It appends the String values it accepts as lines to
 * {@code file} and reacts to special values (each command acts once per record and task instance;
 * a record is identified by its original topic, partition and Kafka offset):
 * <ul>
 * <li>"bad..." is reported to the errant record reporter and not written;</li>
 * <li>"retry..." makes put call context.timeout(500) and throw a RetriableException before
 *     writing anything of the batch; on redelivery the batch is written normally;</li>
 * <li>"rewind" writes "rewind", calls context.offset(partition, 0) and drops the rest of the
 *     batch;</li>
 * <li>"pause" writes "pause", pauses every assigned partition, rewinds to the next record and
 *     drops the rest of the batch; the first put (empty ones included) at least 1000 ms later
 *     writes "resume" and resumes the partitions.</li>
 * </ul>
 * The writer is flushed after each put, in flush and in preCommit.
 */
public class ScriptedSinkTask extends SinkTask {
    private record RecordId(String topic, int partition, long offset) {
        static RecordId of(SinkRecord record) {
            return new RecordId(record.originalTopic(), record.originalKafkaPartition(),
                record.originalKafkaOffset());
        }

        TopicPartition topicPartition() {
            return new TopicPartition(topic, partition);
        }
    }

    private BufferedWriter writer;
    private long commitOffsetMax;
    private final Set<TopicPartition> assignment = new LinkedHashSet<>();
    private final Set<RecordId> seenRetries = new HashSet<>();
    private final Set<RecordId> seenRewinds = new HashSet<>();
    private final Set<RecordId> seenPauses = new HashSet<>();
    private Long pausedAt;

    @Override
    public String version() {
        return "0.1.0";
    }

    @Override
    public void start(Map<String, String> props) {
        AbstractConfig config = new AbstractConfig(ScriptedSinkConnector.CONFIG_DEF, props);
        commitOffsetMax = config.getLong(ScriptedSinkConnector.COMMIT_OFFSET_MAX);
        String file = config.getString(ScriptedSinkConnector.FILE);
        try {
            writer = Files.newBufferedWriter(Paths.get(file), StandardCharsets.UTF_8,
                StandardOpenOption.CREATE, StandardOpenOption.APPEND, StandardOpenOption.WRITE);
        } catch (IOException e) {
            throw new ConnectException("cannot open " + file, e);
        }
    }

    @Override
    public void open(Collection<TopicPartition> partitions) {
        assignment.addAll(partitions);
    }

    @Override
    public void close(Collection<TopicPartition> partitions) {
        assignment.removeAll(partitions);
    }

    @Override
    public void put(Collection<SinkRecord> records) {
        if (pausedAt != null && System.currentTimeMillis() - pausedAt >= 1000) {
            writeLine("resume");
            context.resume(assignment.toArray(new TopicPartition[0]));
            pausedAt = null;
        }
        for (SinkRecord record : records) {
            String value = String.valueOf(record.value());
            if (value.startsWith("retry") && seenRetries.add(RecordId.of(record))) {
                context.timeout(500);
                flushWriter();
                throw new RetriableException("retry requested by " + value);
            }
        }
        for (SinkRecord record : records) {
            String value = String.valueOf(record.value());
            RecordId id = RecordId.of(record);
            if (value.startsWith("bad")) {
                ErrantRecordReporter reporter = context.errantRecordReporter();
                if (reporter == null) {
                    throw new ConnectException("no errant record reporter");
                }
                reporter.report(record, new DataException("rejected " + value));
            } else if (value.equals("rewind") && seenRewinds.add(id)) {
                writeLine("rewind");
                context.offset(id.topicPartition(), 0L);
                break;
            } else if (value.equals("pause") && seenPauses.add(id)) {
                writeLine("pause");
                context.pause(assignment.toArray(new TopicPartition[0]));
                pausedAt = System.currentTimeMillis();
                context.offset(id.topicPartition(), id.offset() + 1);
                break;
            } else {
                writeLine(value);
            }
        }
        flushWriter();
    }

    @Override
    public void flush(Map<TopicPartition, OffsetAndMetadata> currentOffsets) {
        flushWriter();
    }

    @Override
    public Map<TopicPartition, OffsetAndMetadata> preCommit(
            Map<TopicPartition, OffsetAndMetadata> currentOffsets) {
        flushWriter();
        if (commitOffsetMax < 0) {
            return currentOffsets;
        }
        Map<TopicPartition, OffsetAndMetadata> capped = new HashMap<>();
        currentOffsets.forEach((tp, offset) ->
            capped.put(tp, new OffsetAndMetadata(Math.min(offset.offset(), commitOffsetMax))));
        return capped;
    }

    @Override
    public void stop() {
        if (writer != null) {
            try {
                writer.close();
            } catch (IOException e) {
                throw new ConnectException("cannot close the output file", e);
            }
            writer = null;
        }
    }

    private void writeLine(String line) {
        try {
            writer.write(line);
            writer.write('\n');
        } catch (IOException e) {
            throw new ConnectException("cannot write the output file", e);
        }
    }

    private void flushWriter() {
        if (writer == null) {
            return;
        }
        try {
            writer.flush();
        } catch (IOException e) {
            throw new ConnectException("cannot write the output file", e);
        }
    }
}
