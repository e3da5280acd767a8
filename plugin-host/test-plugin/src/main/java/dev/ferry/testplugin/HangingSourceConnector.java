package dev.ferry.testplugin;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.Config;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.connect.connector.Task;
import org.apache.kafka.connect.source.SourceConnector;

/**
 * A source connector that blocks for {@code hang.ms} in one of its lifecycle calls, named by
 * {@code hang.in}: start, taskConfigs, stop, validate or alterOffsets on the connector, poll on its task. The
 * stuck plugin of the scenarios where one connector must not hold up the worker.
 */
public class HangingSourceConnector extends SourceConnector {
    public static final String HANG_IN = "hang.in";
    public static final String HANG_MS = "hang.ms";

    static final ConfigDef CONFIG_DEF = new ConfigDef()
        .define(HANG_IN, Type.STRING, "none",
            ConfigDef.ValidString.in("none", "start", "taskConfigs", "stop", "validate", "poll", "alterOffsets"),
            Importance.HIGH, "The call that blocks.")
        .define(HANG_MS, Type.LONG, 45_000L, ConfigDef.Range.atLeast(0), Importance.MEDIUM,
            "How long the call blocks, in milliseconds.");

    private Map<String, String> props = Map.of();

    static void hangIf(String call, Map<String, String> props) {
        AbstractConfig config = new AbstractConfig(CONFIG_DEF, props);
        if (call.equals(config.getString(HANG_IN))) {
            try {
                Thread.sleep(config.getLong(HANG_MS));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    @Override
    public String version() {
        return "0.1.0";
    }

    @Override
    public Config validate(Map<String, String> connectorConfigs) {
        hangIf("validate", connectorConfigs);
        return super.validate(connectorConfigs);
    }

    @Override
    public void start(Map<String, String> props) {
        this.props = new HashMap<>(props);
        hangIf("start", props);
    }

    @Override
    public Class<? extends Task> taskClass() {
        return HangingSourceTask.class;
    }

    @Override
    public List<Map<String, String>> taskConfigs(int maxTasks) {
        hangIf("taskConfigs", props);
        return maxTasks >= 1 ? List.of(new HashMap<>(props)) : List.of();
    }

    @Override
    public void stop() {
        hangIf("stop", props);
    }

    @Override
    public boolean alterOffsets(Map<String, String> connectorConfig, Map<Map<String, ?>, Map<String, ?>> offsets) {
        hangIf("alterOffsets", connectorConfig);
        return true;
    }

    @Override
    public ConfigDef config() {
        return CONFIG_DEF;
    }
}
