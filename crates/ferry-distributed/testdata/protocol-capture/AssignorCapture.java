// Records rounds of Apache Kafka Connect's own IncrementalCooperativeAssignor, so Ferry's assignor
// (crates/ferry-distributed/src/assignor/incremental.rs) can replay the same scenarios and must
// hand out exactly the same work to the same members.
//
// The simulated group behaves like production: each member reports its assignment snapshot through
// the sessioned (V2) metadata codec, the leader builds the member map as the assignor does (a
// HashMap keyed by member id), assignments travel through the assignment codec, and members merge
// them the way WorkerCoordinator.onJoinComplete does (received + (previous - revoked)).
//
// The class sits in Connect's package to reach the assignor's package-private round method and
// its delay field. Run through run.sh; it writes ../protocol/assignor_rounds.json. Each rebalance
// step lists the members whose assignment is not empty; all others received nothing.
package org.apache.kafka.connect.runtime.distributed;

import org.apache.kafka.common.utils.Time;
import org.apache.kafka.common.utils.LogContext;
import org.apache.kafka.connect.runtime.TargetState;
import org.apache.kafka.connect.runtime.distributed.WorkerCoordinator.ConnectorsAndTasks;
import org.apache.kafka.connect.storage.AppliedConnectorConfig;
import org.apache.kafka.connect.storage.ClusterConfigState;
import org.apache.kafka.connect.util.ConnectorTaskId;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.UUID;
import java.util.function.Supplier;
import java.util.stream.Collectors;

public class AssignorCapture {
    static final long OFFSET = 618;

    public static void main(String[] args) {
        List<String> scenarios = new ArrayList<>();
        scenarios.add(joinsAndLeaves());
        scenarios.add(duplicatesAndDeletes());
        scenarios.add(failedDeliveries());
        long seed = 20240611L;
        int[] delays = {0, 1000, 300000, 1000, 0, 300000};
        for (int i = 0; i < delays.length; i++) {
            scenarios.add(random("random_" + i + "_delay_" + delays[i], delays[i], seed + i, 50));
        }
        StringBuilder sb = new StringBuilder("[\n");
        for (int i = 0; i < scenarios.size(); i++) {
            sb.append(scenarios.get(i)).append(i + 1 < scenarios.size() ? ",\n" : "\n");
        }
        sb.append("]\n");
        System.out.print(sb);
    }

    // ---------------------------------------------------------------------------------------------
    // Scenarios

    static String joinsAndLeaves() {
        Sim s = new Sim("joins_and_leaves", 300000);
        s.addConnector("connector1", 4);
        s.addConnector("connector2", 4);
        s.addConnector("connector3", 5);
        s.addWorker("worker1");
        s.rebalance("standard");
        s.addWorker("worker2");
        s.rebalance("standard");
        s.addWorker("worker3");
        s.rebalance("standard");
        s.sleep(40);
        s.rebalance("standard");
        s.rebalance("standard");
        s.removeWorker("worker2");
        s.rebalance("standard");
        s.sleep(100000);
        s.addWorker("worker4");
        s.rebalance("standard");
        s.sleep(200000);
        s.rebalance("standard");
        s.rebalance("standard");
        s.removeWorker("worker1");
        s.newLeader();
        s.rebalance("standard");
        s.addWorker("worker1");
        s.rebalance("standard");
        s.rebalance("standard");
        return s.json();
    }

    static String duplicatesAndDeletes() {
        Sim s = new Sim("duplicates_and_deletes", 300000);
        s.addConnector("alpha", 3);
        s.addConnector("beta", 2);
        s.addConnector("gamma", 6);
        s.addWorker("connect-1-a");
        s.addWorker("connect-1-b");
        s.rebalance("standard");
        s.addWorkerWith("connect-1-c", List.of("alpha"), List.of(new ConnectorTaskId("alpha", 0),
                new ConnectorTaskId("gamma", 1)));
        s.rebalance("standard");
        s.rebalance("standard");
        s.removeConnector("gamma");
        s.rebalance("standard");
        s.addConnector("gamma", 2);
        s.addConnector("delta", 7);
        s.rebalance("standard");
        s.rebalance("standard");
        return s.json();
    }

    static String failedDeliveries() {
        Sim s = new Sim("failed_deliveries", 300000);
        s.addConnector("connector1", 4);
        s.addConnector("connector2", 4);
        s.addWorker("worker1");
        s.addWorker("worker2");
        s.rebalance("failed");
        s.rebalance("standard");
        s.addWorker("worker3");
        s.rebalance("failed");
        s.rebalance("mismatch");
        s.sleep(40);
        s.rebalance("standard");
        s.rebalance("standard");
        return s.json();
    }

    static String random(String name, int maxDelay, long seed, int rounds) {
        Random rnd = new Random(seed);
        Sim s = new Sim(name, maxDelay);
        List<String> workers = new ArrayList<>();
        List<String> connectorNames = new ArrayList<>();
        int connectorSeq = 0;
        for (int i = 0; i < 3; i++) {
            String c = "conn-" + Integer.toString(rnd.nextInt(1 << 20), 36) + "-" + connectorSeq++;
            connectorNames.add(c);
            s.addConnector(c, rnd.nextInt(6));
        }
        String first = memberId(rnd);
        workers.add(first);
        s.addWorker(first);
        for (int round = 0; round < rounds; round++) {
            int op = rnd.nextInt(10);
            if (op <= 2) {
                String w = memberId(rnd);
                workers.add(w);
                s.addWorker(w);
            } else if (op == 3 && workers.size() > 1) {
                String w = workers.remove(rnd.nextInt(workers.size()));
                s.removeWorker(w);
                if (w.equals(s.leader)) s.newLeader();
            } else if (op == 4) {
                String c = "conn-" + Integer.toString(rnd.nextInt(1 << 20), 36) + "-" + connectorSeq++;
                connectorNames.add(c);
                s.addConnector(c, rnd.nextInt(9));
            } else if (op == 5 && connectorNames.size() > 1) {
                s.removeConnector(connectorNames.remove(rnd.nextInt(connectorNames.size())));
            } else if (op == 6 && !connectorNames.isEmpty()) {
                String c = connectorNames.get(rnd.nextInt(connectorNames.size()));
                s.removeConnector(c);
                s.addConnector(c, rnd.nextInt(9));
            }
            int sleepKind = rnd.nextInt(4);
            if (sleepKind == 1) s.sleep(rnd.nextInt(100));
            else if (sleepKind == 2) s.sleep(maxDelay / 2 + rnd.nextInt(50));
            else if (sleepKind == 3) s.sleep(maxDelay + 1);
            int mode = rnd.nextInt(12);
            s.rebalance(mode == 0 ? "failed" : mode == 1 ? "mismatch" : "standard");
            // Members that had work revoked ask for a follow-up round.
            if (s.lastHadRevocations) s.rebalance("standard");
        }
        return s.json();
    }

    static String memberId(Random rnd) {
        return "connect-" + (1 + rnd.nextInt(3)) + "-" + new UUID(rnd.nextLong(), rnd.nextLong());
    }

    // ---------------------------------------------------------------------------------------------
    // Simulation

    static final class ManualTime implements Time {
        long now = 1_700_000_000_000L;

        public long milliseconds() {
            return now;
        }

        public long nanoseconds() {
            return now * 1_000_000L;
        }

        public void sleep(long ms) {
            now += ms;
        }

        public void waitObject(Object obj, Supplier<Boolean> condition, long deadlineMs) {
            throw new UnsupportedOperationException();
        }
    }

    static final class Sim {
        final String name;
        final int maxDelay;
        final ManualTime time = new ManualTime();
        IncrementalCooperativeAssignor assignor;
        final Map<String, Integer> connectors = new TreeMap<>();
        final LinkedHashMap<String, ExtendedAssignment> members = new LinkedHashMap<>();
        final List<String> steps = new ArrayList<>();
        String leader;
        int generation = 1000;
        boolean lastHadRevocations;

        Sim(String name, int maxDelay) {
            this.name = name;
            this.maxDelay = maxDelay;
            this.assignor = new IncrementalCooperativeAssignor(new LogContext(), time, maxDelay);
        }

        void newLeader() {
            assignor = new IncrementalCooperativeAssignor(new LogContext(), time, maxDelay);
            leader = members.isEmpty() ? null : members.keySet().iterator().next();
            steps.add("{\"op\": \"new_leader\"}");
        }

        void addWorker(String id) {
            members.put(id, null);
            if (leader == null) leader = id;
            steps.add("{\"op\": \"add_worker\", \"worker\": " + q(id) + "}");
        }

        void addWorkerWith(String id, List<String> owned, List<ConnectorTaskId> ownedTasks) {
            members.put(id, new ExtendedAssignment((short) 2, ConnectProtocol.Assignment.NO_ERROR, "old-leader",
                    "http://old-leader:8083/", OFFSET, new ArrayList<>(owned), new ArrayList<>(ownedTasks),
                    new ArrayList<>(), new ArrayList<>(), 0));
            steps.add("{\"op\": \"add_worker_with\", \"worker\": " + q(id) + ", \"connectors\": " + strings(owned)
                    + ", \"tasks\": " + tasks(ownedTasks) + "}");
        }

        void removeWorker(String id) {
            members.remove(id);
            steps.add("{\"op\": \"remove_worker\", \"worker\": " + q(id) + "}");
        }

        void addConnector(String c, int tasks) {
            connectors.put(c, tasks);
            steps.add("{\"op\": \"add_connector\", \"connector\": " + q(c) + ", \"tasks\": " + tasks + "}");
        }

        void removeConnector(String c) {
            connectors.remove(c);
            steps.add("{\"op\": \"remove_connector\", \"connector\": " + q(c) + "}");
        }

        void sleep(long ms) {
            time.sleep(ms);
            steps.add("{\"op\": \"sleep\", \"ms\": " + ms + "}");
        }

        ClusterConfigState configState() {
            Map<String, Integer> taskCounts = new HashMap<>(connectors);
            Map<String, Map<String, String>> connectorConfigs = new HashMap<>();
            Map<String, TargetState> targetStates = new HashMap<>();
            Map<ConnectorTaskId, Map<String, String>> taskConfigs = new HashMap<>();
            Map<String, AppliedConnectorConfig> applied = new HashMap<>();
            for (Map.Entry<String, Integer> e : taskCounts.entrySet()) {
                connectorConfigs.put(e.getKey(), Collections.emptyMap());
                targetStates.put(e.getKey(), TargetState.STARTED);
                applied.put(e.getKey(), new AppliedConnectorConfig(Collections.emptyMap()));
                for (int i = 0; i < e.getValue(); i++) {
                    taskConfigs.put(new ConnectorTaskId(e.getKey(), i), Collections.emptyMap());
                }
            }
            return new ClusterConfigState(OFFSET, null, taskCounts, connectorConfigs, targetStates, taskConfigs,
                    Collections.emptyMap(), Collections.emptyMap(), applied, Collections.emptySet(),
                    Collections.emptySet());
        }

        void rebalance(String mode) {
            generation++;
            int lastCompleted = mode.equals("mismatch") ? generation - 2 : generation - 1;

            Map<String, ExtendedWorkerState> memberConfigs = new HashMap<>();
            for (Map.Entry<String, ExtendedAssignment> m : members.entrySet()) {
                ByteBuffer bytes = IncrementalCooperativeConnectProtocol.serializeMetadata(
                        new ExtendedWorkerState("http://" + m.getKey() + ":8083/", OFFSET, m.getValue()), true);
                memberConfigs.put(m.getKey(), IncrementalCooperativeConnectProtocol.deserializeMetadata(bytes));
            }
            Map<String, ConnectorsAndTasks> memberAssignments = memberConfigs.entrySet().stream().collect(
                    Collectors.toMap(Map.Entry::getKey, e -> new ConnectorsAndTasks.Builder()
                            .with(e.getValue().assignment().connectors(), e.getValue().assignment().tasks())
                            .build()));

            IncrementalCooperativeAssignor.ClusterAssignment result =
                    assignor.performTaskAssignment(configState(), lastCompleted, generation, memberAssignments);
            int delay = assignor.delay;

            StringBuilder rec = new StringBuilder("{\"op\": \"rebalance\", \"mode\": " + q(mode) + ", \"delay\": "
                    + delay + ", \"scheduled_rebalance\": " + assignor.scheduledRebalance + ", \"member_count\": "
                    + members.size() + ", \"members\": {");
            boolean first = true;
            lastHadRevocations = false;
            for (String id : members.keySet()) {
                Collection<String> newC = result.newlyAssignedConnectors(id);
                Collection<ConnectorTaskId> newT = result.newlyAssignedTasks(id);
                Collection<String> revC = result.newlyRevokedConnectors(id);
                Collection<ConnectorTaskId> revT = result.newlyRevokedTasks(id);
                lastHadRevocations |= !revC.isEmpty() || !revT.isEmpty();
                if (newC.isEmpty() && newT.isEmpty() && revC.isEmpty() && revT.isEmpty()) {
                    continue; // members without changes are left out to keep the file small
                }
                rec.append(first ? "" : ", ").append(q(id)).append(": {\"connectors\": ").append(strings(newC))
                        .append(", \"tasks\": ").append(tasks(newT))
                        .append(", \"revoked_connectors\": ").append(strings(revC))
                        .append(", \"revoked_tasks\": ").append(tasks(revT)).append("}");
                first = false;
            }
            rec.append("}}");
            steps.add(rec.toString());

            if (mode.equals("failed")) {
                lastHadRevocations = false;
                return;
            }
            for (Map.Entry<String, ExtendedAssignment> m : members.entrySet()) {
                String id = m.getKey();
                ExtendedAssignment sent = new ExtendedAssignment((short) 2, ConnectProtocol.Assignment.NO_ERROR,
                        leader, "http://" + leader + ":8083/", OFFSET,
                        new ArrayList<>(result.newlyAssignedConnectors(id)),
                        new ArrayList<>(result.newlyAssignedTasks(id)),
                        new ArrayList<>(result.newlyRevokedConnectors(id)),
                        new ArrayList<>(result.newlyRevokedTasks(id)), delay);
                ExtendedAssignment received = IncrementalCooperativeConnectProtocol.deserializeAssignment(
                        IncrementalCooperativeConnectProtocol.serializeAssignment(sent, true));
                ExtendedAssignment previous = m.getValue();
                if (previous != null) {
                    previous.connectors().removeAll(received.revokedConnectors());
                    previous.tasks().removeAll(received.revokedTasks());
                    received.connectors().addAll(previous.connectors());
                    received.tasks().addAll(previous.tasks());
                }
                m.setValue(received);
            }
        }

        String json() {
            StringBuilder sb = new StringBuilder("  {\"name\": " + q(name) + ", \"max_delay\": " + maxDelay
                    + ", \"start_ms\": 1700000000000, \"steps\": [\n");
            for (int i = 0; i < steps.size(); i++) {
                sb.append("    ").append(steps.get(i)).append(i + 1 < steps.size() ? ",\n" : "\n");
            }
            return sb.append("  ]}").toString();
        }
    }

    static String strings(Collection<String> values) {
        StringBuilder sb = new StringBuilder("[");
        for (String v : values) sb.append(sb.length() > 1 ? ", " : "").append(q(v));
        return sb.append("]").toString();
    }

    static String tasks(Collection<ConnectorTaskId> values) {
        StringBuilder sb = new StringBuilder("[");
        for (ConnectorTaskId t : values) {
            sb.append(sb.length() > 1 ? ", " : "").append("[").append(q(t.connector())).append(", ")
                    .append(t.task()).append("]");
        }
        return sb.append("]").toString();
    }

    static String q(String s) {
        StringBuilder sb = new StringBuilder("\"");
        for (char c : s.toCharArray()) {
            if (c == '"' || c == '\\') sb.append('\\').append(c);
            else if (c < 0x20 || c > 0x7e) sb.append(String.format("\\u%04x", (int) c));
            else sb.append(c);
        }
        return sb.append('"').toString();
    }
}
