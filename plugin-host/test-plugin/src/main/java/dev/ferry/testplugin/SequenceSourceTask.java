package dev.ferry.testplugin;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.source.SourceRecord;
import org.apache.kafka.connect.source.SourceTask;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The task of {@link SequenceSourceConnector}: on each start it reads its position back from the
 * offset of source partition {"source": "sequence"} and emits {@code batch.size} records from the
 * next position on, then idles. It can instead fail in start or exit its JVM in poll.
 */
public class SequenceSourceTask extends SourceTask {
    static final Map<String, Object> PARTITION = Map.of("source", "sequence");
    private static final Logger log = LoggerFactory.getLogger(SequenceSourceTask.class);

    private String topic;
    private int batchSize;
    private int exitOnPoll;
    private boolean defineTransactions;
    private long next;
    private int emitted;
    private volatile boolean stopping;
    private long committedRecords;

    @Override
    public String version() {
        return "0.1.0";
    }

    @Override
    public void start(Map<String, String> props) {
        AbstractConfig config = new AbstractConfig(SequenceSourceConnector.CONFIG_DEF, props);
        if (config.getBoolean(SequenceSourceConnector.FAIL_ON_START)) {
            throw new ConnectException("SequenceSourceTask was configured to fail in start");
        }
        topic = config.getString(SequenceSourceConnector.TOPIC);
        batchSize = config.getInt(SequenceSourceConnector.BATCH_SIZE);
        exitOnPoll = config.getInt(SequenceSourceConnector.EXIT_ON_POLL);
        defineTransactions = config.getBoolean(SequenceSourceConnector.CONNECTOR_TRANSACTIONS);
        Map<String, Object> offset = context.offsetStorageReader().offset(PARTITION);
        Object position = offset == null ? null : offset.get("position");
        next = position instanceof Number n ? n.longValue() + 1 : 0;
        emitted = 0;
        stopping = false;
        // At DEBUG, so tests can see a level set through /admin/loggers reach the plugin.
        log.debug("SequenceSourceTask starting at position {}", next);
    }

    @Override
    public List<SourceRecord> poll() throws InterruptedException {
        if (exitOnPoll >= 0) {
            System.exit(exitOnPoll);
        }
        if (emitted < batchSize) {
            List<SourceRecord> records = new ArrayList<>(batchSize - emitted);
            while (emitted < batchSize) {
                long n = next++;
                emitted++;
                SourceRecord record = new SourceRecord(PARTITION, Map.of("position", n), topic, null,
                    null, null, Schema.STRING_SCHEMA, "record-" + n);
                records.add(record);
                if (defineTransactions && n % 10 == 4) {
                    context.transactionContext().abortTransaction(record);
                } else if (defineTransactions && n % 10 == 9) {
                    context.transactionContext().commitTransaction(record);
                }
            }
            return records;
        }
        if (!stopping) {
            Thread.sleep(100);
        }
        return null;
    }

    @Override
    public void commitRecord(SourceRecord record, RecordMetadata metadata) {
        committedRecords++;
    }

    @Override
    public void commit() {
    }

    @Override
    public void stop() {
        stopping = true;
    }
}
