// Writes golden fixtures for Ferry's Connect group protocol codec (crates/ferry-distributed/src/protocol.rs).
//
// Every case is produced by Apache Kafka Connect's own serializers (ConnectProtocol,
// IncrementalCooperativeConnectProtocol) and decoded again with Kafka's own deserializers, so the
// fixture holds both the exact bytes and the fields Java reads back from them. A few "decode only"
// cases are hand-built byte strings (truncated, null arrays, future versions, malformed input) that
// show how Java's tolerant parser reacts.
//
// Run through run.sh, which compiles this file against the Connect 4.1.1 jars and writes
// ../protocol/fixtures.json. Output: one JSON object per case inside a JSON array.

import org.apache.kafka.connect.runtime.distributed.ConnectProtocol;
import org.apache.kafka.connect.runtime.distributed.ExtendedAssignment;
import org.apache.kafka.connect.runtime.distributed.ExtendedWorkerState;
import org.apache.kafka.connect.runtime.distributed.IncrementalCooperativeConnectProtocol;
import org.apache.kafka.connect.util.ConnectorTaskId;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;

public class Capture {
    private static final List<String> CASES = new ArrayList<>();
    private static final String URL = "http://w1:8083/";
    private static final String LEADER = "connect-1-8a7e61b5-5d1c-4c8e-9a55-0f3f3e2f6c11";
    private static final String LEADER_URL = "http://leader:8083/";

    public static void main(String[] args) {
        metadataCases();
        assignmentCases();
        decodeOnlyCases();
        StringBuilder sb = new StringBuilder("[\n");
        for (int i = 0; i < CASES.size(); i++) {
            sb.append("  ").append(CASES.get(i)).append(i + 1 < CASES.size() ? ",\n" : "\n");
        }
        sb.append("]\n");
        System.out.print(sb);
    }

    // ---------------------------------------------------------------------------------------------
    // Cases

    private static void metadataCases() {
        // V0 (protocol "default"): no allocation field at all.
        metadata("metadata_v0", ConnectProtocol.serializeMetadata(new ConnectProtocol.WorkerState(URL, 42)));
        metadata("metadata_v0_offset_minus_one",
                ConnectProtocol.serializeMetadata(new ConnectProtocol.WorkerState("http://10.0.0.5:8083/", -1)));

        // V1 / V2 without an allocation (the worker never received an assignment): null bytes.
        metadata("metadata_v1_no_allocation",
                IncrementalCooperativeConnectProtocol.serializeMetadata(new ExtendedWorkerState(URL, 42, null), false));
        // The example from the spec (internals.md section 4.2).
        metadata("metadata_v2_no_allocation",
                IncrementalCooperativeConnectProtocol.serializeMetadata(new ExtendedWorkerState(URL, 42, null), true));

        ExtendedAssignment owned = ext((short) 1, ConnectProtocol.Assignment.NO_ERROR, LEADER, LEADER_URL, 17,
                list("conn-a", "conn-b"), tasks("conn-a", 0, "conn-a", 1, "conn-b", 0, "conn-c", 2),
                list(), tasks(), 0);
        metadata("metadata_v1_allocation",
                IncrementalCooperativeConnectProtocol.serializeMetadata(new ExtendedWorkerState(URL, 17, owned), false));
        metadata("metadata_v2_allocation",
                IncrementalCooperativeConnectProtocol.serializeMetadata(new ExtendedWorkerState(URL, 17, owned), true));

        // The allocation is the last assignment snapshot, which keeps its revocations and delay.
        ExtendedAssignment snapshot = ext((short) 2, ConnectProtocol.Assignment.NO_ERROR, LEADER, LEADER_URL, 99,
                list("orders-sink"), tasks("orders-sink", 3, "inventory-source", 0),
                list("old-conn"), tasks("old-conn", 0, "old-conn", 1), 1600);
        metadata("metadata_v2_allocation_with_revocations",
                IncrementalCooperativeConnectProtocol.serializeMetadata(new ExtendedWorkerState(URL, 99, snapshot), true));

        // An assignment with nothing in it is not the "empty" sentinel, so it is serialized.
        ExtendedAssignment nothing = ext((short) 2, ConnectProtocol.Assignment.NO_ERROR, LEADER, LEADER_URL, -1,
                list(), tasks(), list(), tasks(), 0);
        metadata("metadata_v2_empty_allocation",
                IncrementalCooperativeConnectProtocol.serializeMetadata(new ExtendedWorkerState(URL, -1, nothing), true));
    }

    private static void assignmentCases() {
        // ---- V0 (eager) ----
        assignmentV0("assignment_v0_connectors_and_tasks", ConnectProtocol.Assignment.NO_ERROR, 42,
                list("c1", "c2"), tasks("c1", 0, "c1", 1, "c2", 0));
        assignmentV0("assignment_v0_config_mismatch", ConnectProtocol.Assignment.CONFIG_MISMATCH, 1234,
                list(), tasks());
        assignmentV0("assignment_v0_tasks_only", ConnectProtocol.Assignment.NO_ERROR, 5,
                list(), tasks("jdbc-source", 0, "jdbc-source", 2));
        assignmentV0("assignment_v0_connector_only", ConnectProtocol.Assignment.NO_ERROR, 5,
                list("jdbc-source"), tasks());
        assignmentV0("assignment_v0_empty", ConnectProtocol.Assignment.NO_ERROR, 0, list(), tasks());
        assignmentV0("assignment_v0_many_connectors", ConnectProtocol.Assignment.NO_ERROR, 77,
                names("connector", 20), tasks("connector3", 0, "connector11", 1, "zz-tasks-only", 0));

        // ---- V1 (compatible) and V2 (sessioned) ----
        for (short v = 1; v <= 2; v++) {
            boolean sessioned = v == 2;
            String p = "assignment_v" + v + "_";
            assignmentExt(p + "connectors_and_tasks", sessioned, ext(v, ConnectProtocol.Assignment.NO_ERROR,
                    LEADER, LEADER_URL, 42, list("c1", "c2"), tasks("c1", 0, "c1", 1, "c2", 0), list(), tasks(), 0));
            assignmentExt(p + "revocations_and_delay", sessioned, ext(v, ConnectProtocol.Assignment.NO_ERROR,
                    LEADER, LEADER_URL, 43, list("new-conn"), tasks("new-conn", 0),
                    list("c2", "c1"), tasks("c1", 1, "c2", 0, "c1", 0), 300000));
            assignmentExt(p + "config_mismatch", sessioned, ext(v, ConnectProtocol.Assignment.CONFIG_MISMATCH,
                    LEADER, LEADER_URL, 9001, list(), tasks(), list(), tasks(), 0));
            assignmentExt(p + "tasks_only", sessioned, ext(v, ConnectProtocol.Assignment.NO_ERROR,
                    LEADER, LEADER_URL, 8, list(), tasks("s3-sink", 4, "s3-sink", 5), list(), tasks("s3-sink", 1), 0));
            assignmentExt(p + "connector_only", sessioned, ext(v, ConnectProtocol.Assignment.NO_ERROR,
                    LEADER, LEADER_URL, 8, list("s3-sink"), tasks(), list("mirror"), tasks(), 0));
            assignmentExt(p + "empty", sessioned, ext(v, ConnectProtocol.Assignment.NO_ERROR,
                    LEADER, LEADER_URL, 10, list(), tasks(), list(), tasks(), 0));
            assignmentExt(p + "delay_only", sessioned, ext(v, ConnectProtocol.Assignment.NO_ERROR,
                    LEADER, LEADER_URL, 10, list(), tasks(), list(), tasks(), 40));
        }

        // Ordering of the connector groups follows java.util.HashSet iteration; these exercise it.
        assignmentExt("assignment_v2_twelve_connectors", true, ext((short) 2, ConnectProtocol.Assignment.NO_ERROR,
                LEADER, LEADER_URL, 12, names("source-", 12), tasks("source-0", 0), list(), tasks(), 0));
        assignmentExt("assignment_v2_thirteen_connectors", true, ext((short) 2, ConnectProtocol.Assignment.NO_ERROR,
                LEADER, LEADER_URL, 13, names("sink-", 13), tasks("sink-12", 0, "sink-1", 3), list(), tasks(), 0));
        assignmentExt("assignment_v2_interleaved_tasks", true, ext((short) 2, ConnectProtocol.Assignment.NO_ERROR,
                LEADER, LEADER_URL, 3, list("beta", "alpha"),
                tasks("gamma", 0, "alpha", 2, "gamma", 1, "beta", 0, "alpha", 0), list(), tasks(), 0));
        assignmentExt("assignment_v2_unicode_names", true, ext((short) 2, ConnectProtocol.Assignment.NO_ERROR,
                "membre-\u00e9", "http://h\u00f4te:8083/", 4,
                list("connecteur-\u00e9t\u00e9", "\u8fde\u63a5\u5668", "emoji-\ud83d\ude80", "plain"),
                tasks("\u8fde\u63a5\u5668", 0, "emoji-\ud83d\ude80", 1),
                list("r\u00e9voqu\u00e9"), tasks("r\u00e9voqu\u00e9", 0), 0));
        assignmentExt("assignment_v2_duplicate_connector", true, ext((short) 2, ConnectProtocol.Assignment.NO_ERROR,
                LEADER, LEADER_URL, 5, list("dup", "dup", "other"), tasks(), list("gone", "gone"), tasks(), 0));
        assignmentExt("assignment_v2_many_connectors", true, ext((short) 2, ConnectProtocol.Assignment.NO_ERROR,
                LEADER, LEADER_URL, 1000, names("my-connector-", 40),
                tasks("my-connector-7", 0, "my-connector-7", 1, "my-connector-39", 5), names("revoked-", 5),
                tasks("revoked-2", 0), 64000));
    }

    private static void decodeOnlyCases() {
        // V1 header with null (-1) assignment and revoked arrays.
        ByteBuffer b = ByteBuffer.allocate(256);
        b.putShort((short) 1).putShort((short) 0);
        str(b, "L");
        str(b, "http://l:8083/");
        b.putLong(7).putInt(-1).putInt(-1).putInt(5);
        decodeAssignment("decode_v1_null_arrays", b);

        // V1 header, fields missing after the config offset: defaults (empty, delay 0).
        b = ByteBuffer.allocate(256);
        b.putShort((short) 1).putShort((short) 1);
        str(b, "L");
        str(b, "http://l:8083/");
        b.putLong(8);
        decodeAssignment("decode_v1_truncated_after_offset", b);

        // V1 header, assignment present, revoked and delay missing.
        b = ByteBuffer.allocate(256);
        b.putShort((short) 1).putShort((short) 0);
        str(b, "L");
        str(b, "http://l:8083/");
        b.putLong(9).putInt(1);
        str(b, "c");
        b.putInt(2).putInt(-1).putInt(3);
        decodeAssignment("decode_v1_truncated_after_assignment", b);

        // A version number Java does not know yet: parsed with the V1 layout anyway.
        b = ByteBuffer.allocate(256);
        b.putShort((short) 7).putShort((short) 0);
        str(b, "L");
        str(b, "http://l:8083/");
        b.putLong(10).putInt(0).putInt(0).putInt(0);
        decodeAssignment("decode_future_version", b);

        // Trailing bytes after a complete V1 assignment are ignored.
        b = ByteBuffer.allocate(256);
        b.putShort((short) 1).putShort((short) 0);
        str(b, "L");
        str(b, "http://l:8083/");
        b.putLong(11).putInt(0).putInt(0).putInt(0).putInt(0xDEADBEEF);
        decodeAssignment("decode_trailing_bytes", b);

        // Negative version: rejected.
        b = ByteBuffer.allocate(256);
        b.putShort((short) -1).putShort((short) 0);
        str(b, "L");
        str(b, "U");
        b.putLong(0);
        decodeAssignment("decode_error_negative_version", b);

        // Truncated inside the leader string: rejected.
        b = ByteBuffer.allocate(256);
        b.putShort((short) 1).putShort((short) 0).putShort((short) 10).put((byte) 'a');
        decodeAssignment("decode_error_truncated_string", b);

        // A delay field cut in half: rejected.
        b = ByteBuffer.allocate(256);
        b.putShort((short) 1).putShort((short) 0);
        str(b, "L");
        str(b, "U");
        b.putLong(0).putInt(0).putInt(0).putShort((short) 0);
        decodeAssignment("decode_error_partial_delay", b);

        // Null tasks array inside a connector entry: rejected (that array is not nullable).
        b = ByteBuffer.allocate(256);
        b.putShort((short) 1).putShort((short) 0);
        str(b, "L");
        str(b, "U");
        b.putLong(0).putInt(1);
        str(b, "c");
        b.putInt(-1);
        decodeAssignment("decode_error_null_task_array", b);

        // Metadata from a future version with an allocation: parsed with the V1 layout.
        b = ByteBuffer.allocate(256);
        b.putShort((short) 3);
        str(b, URL);
        b.putLong(5);
        ByteBuffer alloc = IncrementalCooperativeConnectProtocol.serializeAssignment(ext((short) 2,
                ConnectProtocol.Assignment.NO_ERROR, LEADER, LEADER_URL, 5, list("c"), tasks("c", 0),
                list(), tasks(), 0), true);
        b.putInt(alloc.remaining()).put(alloc);
        decodeMetadata("decode_metadata_future_version", b);

        // Metadata V2 cut right after the offset: the allocation defaults to null.
        b = ByteBuffer.allocate(256);
        b.putShort((short) 2);
        str(b, URL);
        b.putLong(6);
        decodeMetadata("decode_metadata_v2_without_allocation_field", b);

        // Metadata with a truncated offset: rejected.
        b = ByteBuffer.allocate(256);
        b.putShort((short) 1);
        str(b, URL);
        b.putInt(0);
        decodeMetadata("decode_metadata_error_truncated_offset", b);
    }

    // ---------------------------------------------------------------------------------------------
    // Emitters

    private static void metadata(String name, ByteBuffer bytes) {
        ExtendedWorkerState state = IncrementalCooperativeConnectProtocol.deserializeMetadata(bytes.duplicate());
        CASES.add("{\"name\": " + q(name) + ", \"kind\": \"metadata\", \"roundtrip\": true, \"hex\": "
                + q(hex(bytes)) + ", \"decoded\": " + metadataJson(state) + "}");
    }

    private static void assignmentV0(String name, short error, long offset, List<String> connectors,
                                     List<ConnectorTaskId> tasks) {
        ByteBuffer bytes = ConnectProtocol.serializeAssignment(
                new ConnectProtocol.Assignment(error, LEADER, LEADER_URL, offset, connectors, tasks));
        assignment(name, bytes, true);
    }

    private static void assignmentExt(String name, boolean sessioned, ExtendedAssignment a) {
        assignment(name, IncrementalCooperativeConnectProtocol.serializeAssignment(a, sessioned), true);
    }

    private static void assignment(String name, ByteBuffer bytes, boolean roundtrip) {
        ExtendedAssignment decoded = IncrementalCooperativeConnectProtocol.deserializeAssignment(bytes.duplicate());
        CASES.add("{\"name\": " + q(name) + ", \"kind\": \"assignment\", \"roundtrip\": " + roundtrip
                + ", \"hex\": " + q(hex(bytes)) + ", \"decoded\": " + assignmentJson(decoded) + "}");
    }

    private static void decodeAssignment(String name, ByteBuffer built) {
        built.flip();
        String hex = hex(built);
        String result;
        try {
            ExtendedAssignment decoded = IncrementalCooperativeConnectProtocol.deserializeAssignment(built.duplicate());
            result = "\"decoded\": " + assignmentJson(decoded);
        } catch (RuntimeException e) {
            result = "\"error\": " + q(e.getClass().getSimpleName());
        }
        CASES.add("{\"name\": " + q(name) + ", \"kind\": \"assignment\", \"roundtrip\": false, \"hex\": " + q(hex)
                + ", " + result + "}");
    }

    private static void decodeMetadata(String name, ByteBuffer built) {
        built.flip();
        String hex = hex(built);
        String result;
        try {
            ExtendedWorkerState decoded = IncrementalCooperativeConnectProtocol.deserializeMetadata(built.duplicate());
            result = "\"decoded\": " + metadataJson(decoded);
        } catch (RuntimeException e) {
            result = "\"error\": " + q(e.getClass().getSimpleName());
        }
        CASES.add("{\"name\": " + q(name) + ", \"kind\": \"metadata\", \"roundtrip\": false, \"hex\": " + q(hex)
                + ", " + result + "}");
    }

    private static String metadataJson(ExtendedWorkerState s) {
        // The version is not kept by ExtendedWorkerState; the Rust side checks it from the bytes.
        String alloc = s.assignment() == ExtendedAssignment.empty() ? "null" : assignmentJson(s.assignment());
        return "{\"url\": " + q(s.url()) + ", \"config_offset\": " + s.offset() + ", \"allocation\": " + alloc + "}";
    }

    private static String assignmentJson(ExtendedAssignment a) {
        return "{\"version\": " + a.version() + ", \"error\": " + a.error() + ", \"leader\": " + q(a.leader())
                + ", \"leader_url\": " + q(a.leaderUrl()) + ", \"config_offset\": " + a.offset()
                + ", \"connectors\": " + strings(a.connectors()) + ", \"tasks\": " + taskList(a.tasks())
                + ", \"revoked_connectors\": " + strings(a.revokedConnectors())
                + ", \"revoked_tasks\": " + taskList(a.revokedTasks()) + ", \"delay\": " + a.delay() + "}";
    }

    // ---------------------------------------------------------------------------------------------
    // Helpers

    private static ExtendedAssignment ext(short version, short error, String leader, String leaderUrl, long offset,
                                          List<String> connectors, List<ConnectorTaskId> tasks,
                                          List<String> revokedConnectors, List<ConnectorTaskId> revokedTasks,
                                          int delay) {
        return new ExtendedAssignment(version, error, leader, leaderUrl, offset, connectors, tasks,
                revokedConnectors, revokedTasks, delay);
    }

    private static List<String> list(String... names) {
        return new ArrayList<>(Arrays.asList(names));
    }

    private static List<String> names(String prefix, int count) {
        List<String> out = new ArrayList<>();
        for (int i = 0; i < count; i++) out.add(prefix + i);
        return out;
    }

    private static List<ConnectorTaskId> tasks(Object... pairs) {
        List<ConnectorTaskId> out = new ArrayList<>();
        for (int i = 0; i < pairs.length; i += 2) out.add(new ConnectorTaskId((String) pairs[i], (Integer) pairs[i + 1]));
        return out;
    }

    private static void str(ByteBuffer b, String s) {
        byte[] bytes = s.getBytes(StandardCharsets.UTF_8);
        b.putShort((short) bytes.length).put(bytes);
    }

    private static String hex(ByteBuffer buffer) {
        ByteBuffer b = buffer.duplicate();
        StringBuilder sb = new StringBuilder();
        while (b.hasRemaining()) sb.append(String.format("%02x", b.get() & 0xff));
        return sb.toString();
    }

    private static String strings(Collection<String> values) {
        StringBuilder sb = new StringBuilder("[");
        for (String v : values) sb.append(sb.length() > 1 ? ", " : "").append(q(v));
        return sb.append("]").toString();
    }

    private static String taskList(Collection<ConnectorTaskId> values) {
        StringBuilder sb = new StringBuilder("[");
        for (ConnectorTaskId t : values) {
            sb.append(sb.length() > 1 ? ", " : "").append("[").append(q(t.connector())).append(", ").append(t.task()).append("]");
        }
        return sb.append("]").toString();
    }

    private static String q(String s) {
        if (s == null) return "null";
        StringBuilder sb = new StringBuilder("\"");
        for (char c : s.toCharArray()) {
            if (c == '"' || c == '\\') sb.append('\\').append(c);
            else if (c < 0x20 || c > 0x7e) sb.append(String.format("\\u%04x", (int) c));
            else sb.append(c);
        }
        return sb.append('"').toString();
    }
}
