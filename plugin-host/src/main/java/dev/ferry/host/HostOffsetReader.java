package dev.ferry.host;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.storage.OffsetStorageReader;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** Reads source offsets from Ferry's offset store, for a connector or one of its tasks. */
final class HostOffsetReader implements OffsetStorageReader {
    private static final long TIMEOUT_MS = 60_000;
    private final Host host;
    private final String connector;
    private final String task;

    HostOffsetReader(Host host, String connector, String task) {
        this.host = host;
        this.connector = connector;
        this.task = task;
    }

    @Override
    public <T> Map<String, Object> offset(Map<String, T> partition) {
        return offsets(List.of(partition)).get(partition);
    }

    @Override
    public <T> Map<Map<String, T>, Map<String, Object>> offsets(Collection<Map<String, T>> partitions) {
        List<Map<String, T>> ordered = new ArrayList<>(partitions);
        ObjectNode args = Frames.JSON.createObjectNode().put("connector", connector);
        if (task != null) {
            args.put("task", task);
        }
        ArrayNode list = args.putArray("partitions");
        for (Map<String, T> p : ordered) {
            list.add(OffsetJson.text(p));
        }
        JsonNode answer;
        try {
            answer = host.callFerry("offsets.read", args, TIMEOUT_MS);
        } catch (Exception e) {
            throw new ConnectException("Failed to fetch offsets.", e);
        }
        Map<Map<String, T>, Map<String, Object>> out = new HashMap<>();
        JsonNode offsets = answer.get("offsets");
        for (int i = 0; i < ordered.size(); i++) {
            JsonNode o = offsets.get(i);
            out.put(ordered.get(i), o == null || o.isNull() ? null : OffsetJson.decode(o.asText()));
        }
        return out;
    }
}
