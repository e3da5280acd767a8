package dev.ferry.host;

import org.apache.kafka.connect.json.JsonConverter;
import org.apache.kafka.connect.json.JsonConverterConfig;

import java.nio.charset.StandardCharsets;
import java.util.Map;

/**
 * Source partitions and offsets as Java's offset store writes them: schemaless JSON from
 * Kafka's JsonConverter, so integers read back as Long exactly as on Java Connect.
 */
final class OffsetJson {
    private static final JsonConverter CONVERTER = new JsonConverter();

    static {
        CONVERTER.configure(Map.of(JsonConverterConfig.SCHEMAS_ENABLE_CONFIG, "false", "converter.type", "key"));
    }

    private OffsetJson() { }

    static byte[] encode(Map<String, ?> map) {
        return map == null ? null : CONVERTER.fromConnectData("", null, map);
    }

    static String text(Map<String, ?> map) {
        byte[] b = encode(map);
        return b == null ? null : new String(b, StandardCharsets.UTF_8);
    }

    @SuppressWarnings("unchecked")
    static Map<String, Object> decode(String json) {
        if (json == null) {
            return null;
        }
        return (Map<String, Object>) CONVERTER.toConnectData("", json.getBytes(StandardCharsets.UTF_8)).value();
    }
}
