package dev.ferry.testplugin;

import java.util.Map;

import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.connect.connector.ConnectRecord;
import org.apache.kafka.connect.transforms.Transformation;

/**
 * A transformation only the plugin host has (Ferry has no native class of this name): wraps a
 * String value in a prefix and a suffix. Serves the plugin config endpoint for Java transforms
 * and transforms run in the host.
 */
public class AffixValue<R extends ConnectRecord<R>> implements Transformation<R> {
    public static final String PREFIX = "prefix";
    public static final String SUFFIX = "suffix";
    static final ConfigDef CONFIG_DEF = new ConfigDef()
        .define(PREFIX, ConfigDef.Type.STRING, "", ConfigDef.Importance.HIGH, "Text put before the value.")
        .define(SUFFIX, ConfigDef.Type.STRING, "", ConfigDef.Importance.MEDIUM, "Text put after the value.");

    private String prefix;
    private String suffix;

    @Override
    public void configure(Map<String, ?> configs) {
        AbstractConfig config = new AbstractConfig(CONFIG_DEF, configs);
        prefix = config.getString(PREFIX);
        suffix = config.getString(SUFFIX);
    }

    @Override
    public R apply(R record) {
        if (!(record.value() instanceof String value)) {
            return record;
        }
        return record.newRecord(record.topic(), record.kafkaPartition(), record.keySchema(), record.key(),
            record.valueSchema(), prefix + value + suffix, record.timestamp());
    }

    @Override
    public ConfigDef config() {
        return CONFIG_DEF;
    }

    @Override
    public void close() {
    }
}
