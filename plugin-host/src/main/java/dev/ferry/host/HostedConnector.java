package dev.ferry.host;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.metrics.PluginMetrics;
import org.apache.kafka.connect.connector.Connector;
import org.apache.kafka.connect.runtime.isolation.LoaderSwap;
import org.apache.kafka.connect.sink.SinkConnector;
import org.apache.kafka.connect.sink.SinkConnectorContext;
import org.apache.kafka.connect.source.SourceConnector;
import org.apache.kafka.connect.source.SourceConnectorContext;
import org.apache.kafka.connect.storage.OffsetStorageReader;
import org.apache.kafka.connect.util.LoggingContext;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** A connector instance with the context Java's worker would give it. */
final class HostedConnector {
    final String name;
    private final Host host;
    private final Connector connector;
    private final ClassLoader loader;

    private HostedConnector(Host host, String name, Connector connector) {
        this.host = host;
        this.name = name;
        this.connector = connector;
        this.loader = connector.getClass().getClassLoader();
    }

    static HostedConnector start(Host host, String name, String className, Map<String, String> config) {
        try (LoggingContext ignored = LoggingContext.forConnector(name)) {
            Connector connector = host.plugins.newConnector(className);
            HostedConnector hosted = new HostedConnector(host, name, connector);
            try (LoaderSwap swap = host.plugins.withClassLoader(hosted.loader)) {
                connector.initialize(hosted.context());
                connector.start(config);
            }
            return hosted;
        }
    }

    ObjectNode describe() {
        try (LoaderSwap swap = host.plugins.withClassLoader(loader)) {
            ObjectNode out = Frames.JSON.createObjectNode();
            out.put("version", connector.version());
            out.put("taskClass", connector.taskClass().getName());
            out.put("sink", connector instanceof SinkConnector);
            return out;
        }
    }

    JsonNode taskConfigs(int maxTasks) {
        try (LoggingContext ignored = LoggingContext.forConnector(name);
             LoaderSwap swap = host.plugins.withClassLoader(loader)) {
            List<Map<String, String>> configs = connector.taskConfigs(maxTasks);
            ArrayNode out = Frames.JSON.createArrayNode();
            for (Map<String, String> c : configs) {
                out.add(Host.json(c));
            }
            return Frames.JSON.createObjectNode().set("configs", out);
        }
    }

    void stop() {
        try (LoggingContext ignored = LoggingContext.forConnector(name);
             LoaderSwap swap = host.plugins.withClassLoader(loader)) {
            connector.stop();
        }
    }

    /** KIP-875, on a fresh instance as Java's worker does: the connector need not run. */
    static JsonNode alterOffsets(Host host, String className, Map<String, String> config, JsonNode offsets) {
        Connector connector = host.plugins.newConnector(className);
        try (LoaderSwap swap = host.plugins.withClassLoader(connector.getClass().getClassLoader())) {
            boolean handled;
            if (connector instanceof SinkConnector sink) {
                Map<TopicPartition, Long> map = new HashMap<>();
                for (JsonNode e : offsets) {
                    JsonNode p = e.get("partition");
                    JsonNode o = e.get("offset");
                    map.put(new TopicPartition(p.get("kafka_topic").asText(), p.get("kafka_partition").asInt()),
                            o == null || o.isNull() ? null : o.get("kafka_offset").asLong());
                }
                handled = sink.alterOffsets(config, map);
            } else {
                Map<Map<String, ?>, Map<String, ?>> map = new HashMap<>();
                for (JsonNode e : offsets) {
                    JsonNode o = e.get("offset");
                    map.put(Frames.JSON.convertValue(e.get("partition"), Map.class),
                            o == null || o.isNull() ? null : Frames.JSON.convertValue(o, Map.class));
                }
                handled = ((SourceConnector) connector).alterOffsets(config, map);
            }
            return Frames.JSON.createObjectNode().put("handled", handled);
        }
    }

    /**
     * KIP-618's preflight questions to a new instance of a source connector: "exactlyOnce" asks
     * {@code exactlyOnceSupport}, "transactionBoundaries" asks {@code canDefineTransactionBoundaries}.
     * The answer is the enum's name, or null when the connector answers null.
     */
    static JsonNode exactlyOnce(Host host, String className, String question, Map<String, String> config) {
        Connector connector = host.plugins.newConnector(className);
        if (!(connector instanceof SourceConnector source)) {
            throw new IllegalArgumentException("Connector " + className + " is not a source connector");
        }
        try (LoaderSwap swap = host.plugins.withClassLoader(connector.getClass().getClassLoader())) {
            Object answer = switch (question) {
                case "exactlyOnce" -> source.exactlyOnceSupport(config);
                case "transactionBoundaries" -> source.canDefineTransactionBoundaries(config);
                default -> throw new IllegalArgumentException("Unknown exactly-once question " + question);
            };
            ObjectNode body = Frames.JSON.createObjectNode();
            if (answer == null) {
                body.putNull("answer");
            } else {
                body.put("answer", ((Enum<?>) answer).name());
            }
            return body;
        }
    }

    private org.apache.kafka.connect.connector.ConnectorContext context() {
        if (connector instanceof SinkConnector) {
            return new Context();
        }
        return new SourceContext();
    }

    private class Context implements SinkConnectorContext {
        @Override
        public void requestTaskReconfiguration() {
            host.event("connector.reconfigure", Frames.JSON.createObjectNode().put("connector", name));
        }

        @Override
        public void raiseError(Exception e) {
            ObjectNode args = Frames.JSON.createObjectNode().put("connector", name);
            args.set("error", Host.error(e));
            host.event("connector.error", args);
        }

        @Override
        public PluginMetrics pluginMetrics() {
            return host.metrics.connectorPluginMetrics(name);
        }
    }

    private final class SourceContext extends Context implements SourceConnectorContext {
        private final OffsetStorageReader reader = new HostOffsetReader(host, name, null);

        @Override
        public OffsetStorageReader offsetStorageReader() {
            return reader;
        }
    }
}
