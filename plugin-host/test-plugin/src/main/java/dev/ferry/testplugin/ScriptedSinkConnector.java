package dev.ferry.testplugin;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.connect.connector.Task;
import org.apache.kafka.connect.sink.SinkConnector;

/**
 * A sink connector whose single task ({@link ScriptedSinkTask}) appends record values to a file
 * and treats some values as commands: "bad..." goes to the errant record reporter, "retry..."
 * throws a RetriableException once, "rewind" rewinds the partition to offset 0 once, "pause"
 * pauses the partitions for a second once. {@code commit.offset.max} caps the offsets preCommit
 * returns. Serves the scenarios: custom preCommit offsets, the errant record reporter,
 * pause/resume, context.offset rewinds and RetriableException redelivery.
 */
public class ScriptedSinkConnector extends SinkConnector {
    public static final String FILE = "file";
    public static final String COMMIT_OFFSET_MAX = "commit.offset.max";

    static final ConfigDef CONFIG_DEF = new ConfigDef()
        .define(FILE, Type.STRING, ConfigDef.NO_DEFAULT_VALUE, Importance.HIGH,
            "The file the task appends the accepted record values to, one a line (UTF-8).")
        .define(COMMIT_OFFSET_MAX, Type.LONG, -1L, Importance.MEDIUM,
            "When 0 or more, preCommit returns every offset capped at this value; "
                + "when negative it returns the offsets the framework passed in.");

    private Map<String, String> props;

    @Override
    public String version() {
        return "0.1.0";
    }

    @Override
    public void start(Map<String, String> props) {
        new AbstractConfig(CONFIG_DEF, props);
        this.props = new HashMap<>(props);
    }

    @Override
    public Class<? extends Task> taskClass() {
        return ScriptedSinkTask.class;
    }

    @Override
    public List<Map<String, String>> taskConfigs(int maxTasks) {
        return maxTasks >= 1 ? List.of(new HashMap<>(props)) : List.of();
    }

    @Override
    public void stop() {
    }

    @Override
    public ConfigDef config() {
        return CONFIG_DEF;
    }
}
