package dev.ferry.host;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.apache.kafka.common.config.Config;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigValue;
import org.apache.kafka.connect.connector.Connector;
import org.apache.kafka.connect.runtime.isolation.LoaderSwap;

import java.util.Map;

/** A plugin's own ConfigDef and validate(), in the shapes Ferry's validate endpoint builds on. */
final class Validation {
    private Validation() { }

    static JsonNode connectorConfig(Host host, String className) {
        Connector connector = host.plugins.newConnector(className);
        try (LoaderSwap swap = host.plugins.withClassLoader(connector.getClass().getClassLoader())) {
            ArrayNode keys = Frames.JSON.createArrayNode();
            ConfigDef def = connector.config();
            for (ConfigDef.ConfigKey key : def.configKeys().values()) {
                keys.add(key(key));
            }
            ObjectNode out = Frames.JSON.createObjectNode();
            out.set("keys", keys);
            out.put("sink", connector instanceof org.apache.kafka.connect.sink.SinkConnector);
            return out;
        }
    }

    /** The ConfigDef of a converter, header converter, transformation or predicate, as Java's
     *  {@code GET /connector-plugins/{plugin}/config} answers it. */
    static JsonNode pluginConfig(Host host, String className) throws ClassNotFoundException {
        Object plugin = org.apache.kafka.common.utils.Utils.newInstance(host.plugins.pluginClass(className));
        try (LoaderSwap swap = host.plugins.withClassLoader(plugin.getClass().getClassLoader())) {
            ConfigDef def;
            if (plugin instanceof org.apache.kafka.connect.storage.Converter c) {
                def = c.config();
            } else if (plugin instanceof org.apache.kafka.connect.storage.HeaderConverter c) {
                def = c.config();
            } else if (plugin instanceof org.apache.kafka.connect.transforms.Transformation<?> t) {
                def = t.config();
            } else if (plugin instanceof org.apache.kafka.connect.transforms.predicates.Predicate<?> p) {
                def = p.config();
            } else {
                throw new IllegalArgumentException("Not a converter, header converter, transformation or predicate: " + className);
            }
            ArrayNode keys = Frames.JSON.createArrayNode();
            for (ConfigDef.ConfigKey key : def.configKeys().values()) {
                keys.add(key(key));
            }
            ObjectNode out = Frames.JSON.createObjectNode();
            out.set("keys", keys);
            return out;
        }
    }

    static JsonNode validate(Host host, String className, Map<String, String> config) {
        Connector connector = host.plugins.newConnector(className);
        try (LoaderSwap swap = host.plugins.withClassLoader(connector.getClass().getClassLoader())) {
            ConfigDef def = connector.config();
            Config result = connector.validate(config);
            ArrayNode configs = Frames.JSON.createArrayNode();
            for (ConfigValue v : result.configValues()) {
                ObjectNode entry = configs.addObject();
                ConfigDef.ConfigKey key = def.configKeys().get(v.name());
                if (key != null) {
                    entry.set("definition", key(key));
                }
                ObjectNode value = entry.putObject("value");
                value.put("name", v.name());
                ConfigDef.Type type = key == null ? ConfigDef.Type.STRING : key.type;
                value.put("value", v.value() == null ? null : ConfigDef.convertToString(v.value(), type));
                ArrayNode recommended = value.putArray("recommended_values");
                for (Object r : v.recommendedValues()) {
                    recommended.add(ConfigDef.convertToString(r, type));
                }
                ArrayNode errors = value.putArray("errors");
                v.errorMessages().forEach(errors::add);
                value.put("visible", v.visible());
            }
            return Frames.JSON.createObjectNode().set("configs", configs);
        }
    }

    private static ObjectNode key(ConfigDef.ConfigKey key) {
        ObjectNode k = Frames.JSON.createObjectNode();
        k.put("name", key.name);
        k.put("type", key.type.name());
        if (key.defaultValue == ConfigDef.NO_DEFAULT_VALUE) {
            k.put("required", true);
        } else {
            k.put("default", key.defaultValue == null ? null : ConfigDef.convertToString(key.defaultValue, key.type));
        }
        k.put("importance", key.importance == null ? "LOW" : key.importance.name());
        k.put("documentation", key.documentation);
        k.put("group", key.group);
        k.put("orderInGroup", key.orderInGroup);
        k.put("width", key.width == null ? "NONE" : key.width.name());
        k.put("displayName", key.displayName);
        ArrayNode dependents = k.putArray("dependents");
        key.dependents.forEach(dependents::add);
        return k;
    }
}
