package dev.ferry.testplugin;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.connect.connector.Task;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.source.ConnectorTransactionBoundaries;
import org.apache.kafka.connect.source.ExactlyOnceSupport;
import org.apache.kafka.connect.source.SourceConnector;

/**
 * A source connector whose single task emits numbered records ("record-0", "record-1", ...) and
 * keeps its position as a source offset. Serves the scenarios: source offsets are read back after
 * a restart (the task continues where it stopped), a task that throws in start
 * ({@code fail.on.start}), a connector that fails to start until a file exists
 * ({@code connector.start.requires.file}), and a plugin that kills its JVM ({@code exit.on.poll}).
 */
public class SequenceSourceConnector extends SourceConnector {
    public static final String TOPIC = "topic";
    public static final String BATCH_SIZE = "batch.size";
    public static final String FAIL_ON_START = "fail.on.start";
    public static final String EXIT_ON_POLL = "exit.on.poll";
    public static final String START_REQUIRES_FILE = "connector.start.requires.file";
    public static final String CONNECTOR_TRANSACTIONS = "connector.transactions";

    static final ConfigDef CONFIG_DEF = new ConfigDef()
        .define(TOPIC, Type.STRING, ConfigDef.NO_DEFAULT_VALUE, Importance.HIGH,
            "The topic the records are written to.")
        .define(BATCH_SIZE, Type.INT, 5, ConfigDef.Range.atLeast(0), Importance.MEDIUM,
            "How many records the task emits each time it starts; then it idles.")
        .define(FAIL_ON_START, Type.BOOLEAN, false, Importance.LOW,
            "When true the task throws a ConnectException in start.")
        .define(EXIT_ON_POLL, Type.INT, -1, Importance.LOW,
            "When 0 or more the task calls System.exit with this status in poll, killing its JVM.")
        .define(START_REQUIRES_FILE, Type.STRING, null, Importance.LOW,
            "When set, the connector throws a ConnectException in start while this file is missing.")
        .define(CONNECTOR_TRANSACTIONS, Type.BOOLEAN, false, Importance.LOW,
            "When true the connector supports exactly-once and defines transaction boundaries: "
                + "its task asks to abort after each position ending in 4 and to commit after each "
                + "ending in 9 (with transaction.boundary=connector).");

    private Map<String, String> props;

    @Override
    public String version() {
        return "0.1.0";
    }

    @Override
    public void start(Map<String, String> props) {
        AbstractConfig config = new AbstractConfig(CONFIG_DEF, props);
        String required = config.getString(START_REQUIRES_FILE);
        if (required != null && !Files.exists(Path.of(required))) {
            throw new ConnectException("SequenceSourceConnector needs " + required + " to start");
        }
        this.props = new HashMap<>(props);
    }

    @Override
    public Class<? extends Task> taskClass() {
        return SequenceSourceTask.class;
    }

    @Override
    public List<Map<String, String>> taskConfigs(int maxTasks) {
        return maxTasks >= 1 ? List.of(new HashMap<>(props)) : List.of();
    }

    @Override
    public void stop() {
    }

    @Override
    public ExactlyOnceSupport exactlyOnceSupport(Map<String, String> props) {
        return definesTransactions(props) ? ExactlyOnceSupport.SUPPORTED : null;
    }

    @Override
    public ConnectorTransactionBoundaries canDefineTransactionBoundaries(Map<String, String> props) {
        return definesTransactions(props)
            ? ConnectorTransactionBoundaries.SUPPORTED
            : ConnectorTransactionBoundaries.UNSUPPORTED;
    }

    private static boolean definesTransactions(Map<String, String> props) {
        return Boolean.parseBoolean(props.getOrDefault(CONNECTOR_TRANSACTIONS, "false"));
    }

    @Override
    public ConfigDef config() {
        return CONFIG_DEF;
    }
}
