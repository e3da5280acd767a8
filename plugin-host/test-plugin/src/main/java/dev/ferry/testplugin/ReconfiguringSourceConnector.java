package dev.ferry.testplugin;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.connect.connector.Task;
import org.apache.kafka.connect.source.SourceConnector;

/**
 * A source connector that requests task reconfiguration by itself: it starts with one task and,
 * a second after start, raises its task count to {@code tasks.after.reconfiguration} and calls
 * {@code context.requestTaskReconfiguration()}. Its tasks ({@link IdleSourceTask}) emit nothing.
 * Serves the scenario of a connector that changes its task set at run time.
 */
public class ReconfiguringSourceConnector extends SourceConnector {
    public static final String TOPIC = "topic";
    public static final String TASKS_AFTER_RECONFIGURATION = "tasks.after.reconfiguration";
    public static final String TASK_INDEX = "task.index";

    static final ConfigDef CONFIG_DEF = new ConfigDef()
        .define(TOPIC, Type.STRING, ConfigDef.NO_DEFAULT_VALUE, Importance.HIGH,
            "A topic; the tasks write nothing to it.")
        .define(TASKS_AFTER_RECONFIGURATION, Type.INT, 2, Importance.MEDIUM,
            "How many tasks the connector asks for one second after start (tasks.max still caps it).");

    private Map<String, String> props;
    private volatile int taskCount;
    private Thread reconfigurer;

    @Override
    public String version() {
        return "0.1.0";
    }

    @Override
    public void start(Map<String, String> props) {
        AbstractConfig config = new AbstractConfig(CONFIG_DEF, props);
        int after = config.getInt(TASKS_AFTER_RECONFIGURATION);
        this.props = new HashMap<>(props);
        taskCount = 1;
        reconfigurer = new Thread(() -> {
            try {
                Thread.sleep(1000);
            } catch (InterruptedException e) {
                return;
            }
            taskCount = after;
            context.requestTaskReconfiguration();
        }, "ferry-test-plugin-reconfigurer");
        reconfigurer.setDaemon(true);
        reconfigurer.start();
    }

    @Override
    public Class<? extends Task> taskClass() {
        return IdleSourceTask.class;
    }

    @Override
    public List<Map<String, String>> taskConfigs(int maxTasks) {
        int count = Math.min(taskCount, maxTasks);
        List<Map<String, String>> configs = new ArrayList<>(Math.max(count, 0));
        for (int i = 0; i < count; i++) {
            Map<String, String> config = new HashMap<>(props);
            config.put(TASK_INDEX, Integer.toString(i));
            configs.add(config);
        }
        return configs;
    }

    @Override
    public void stop() {
        Thread thread = reconfigurer;
        if (thread != null) {
            thread.interrupt();
        }
    }

    @Override
    public ConfigDef config() {
        return CONFIG_DEF;
    }
}
