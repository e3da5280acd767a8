package dev.ferry.host;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.apache.kafka.connect.errors.RetriableException;
import org.apache.kafka.connect.runtime.ConnectMetrics;
import org.apache.kafka.connect.runtime.WorkerConfig;
import org.apache.kafka.connect.runtime.isolation.PluginDesc;
import org.apache.kafka.connect.runtime.isolation.Plugins;
import org.apache.kafka.common.utils.Time;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.FileDescriptor;
import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Ferry's plugin host: loads Connect plugins from plugin.path with Kafka's own isolation
 * classes and runs connectors and tasks on Ferry's behalf. Frames arrive on stdin and leave on
 * stdout; plugins' own prints to System.out are sent to stderr so they cannot corrupt the stream.
 */
public final class Host {
    // First of all, before any logging framework starts: one that keeps the System.out of its
    // start-up (Log4j's status logger does) would otherwise write into the protocol stream.
    static {
        System.setOut(System.err);
    }

    private static final Logger log = LoggerFactory.getLogger(Host.class);

    final Frames frames;
    Plugins plugins;
    WorkerConfig workerConfig;
    ConnectMetrics metrics;
    String workerId;

    final Map<String, HostedConnector> connectors = new ConcurrentHashMap<>();
    final Map<String, HostedTask> tasks = new ConcurrentHashMap<>();
    /** One thread per connector and per task, as Java's worker runs them; calls to one stay in order. */
    private final Map<String, ExecutorService> lanes = new ConcurrentHashMap<>();
    /** Stops run beside a task's own thread, which may be blocked in poll or put. */
    private final ExecutorService stoppers = Executors.newCachedThreadPool(named("ferry-host-stop"));
    private final ExecutorService general = Executors.newCachedThreadPool(named("ferry-host-call"));
    private final AtomicLong callIds = new AtomicLong();
    private final Map<Long, CompletableFuture<Frames.Frame>> pendingCalls = new ConcurrentHashMap<>();

    Host(Frames frames) {
        this.frames = frames;
    }

    public static void main(String[] args) throws Exception {
        FileOutputStream protocolOut = new FileOutputStream(FileDescriptor.out);
        Frames frames = new Frames(new BufferedInputStream(new FileInputStream(FileDescriptor.in), 1 << 16),
                new BufferedOutputStream(protocolOut, 1 << 16));
        new Host(frames).serve();
        // Ferry closed the stream: it stopped or gave up on this host.
        Runtime.getRuntime().halt(0);
    }

    private static java.util.concurrent.ThreadFactory named(String prefix) {
        AtomicLong n = new AtomicLong();
        return r -> {
            Thread t = new Thread(r, prefix + "-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        };
    }

    void serve() throws IOException {
        Frames.Frame frame;
        while ((frame = frames.read()) != null) {
            ObjectNode header = frame.header();
            long id = header.path("id").asLong();
            if ("reply".equals(header.path("kind").asText())) {
                CompletableFuture<Frames.Frame> pending = pendingCalls.remove(id);
                if (pending != null) {
                    pending.complete(frame);
                }
                continue;
            }
            String op = header.path("op").asText();
            if ("init".equals(op)) {
                runCall(id, op, frame);
                continue;
            }
            Frames.Frame call = frame;
            laneFor(op, header).execute(() -> runCall(id, op, call));
        }
    }

    private ExecutorService laneFor(String op, ObjectNode header) {
        if (op.equals("task.stop") || op.equals("connector.stop")) {
            return stoppers;
        }
        String key = header.hasNonNull("task") ? "task " + header.get("task").asText()
                : header.hasNonNull("connector") ? "connector " + header.get("connector").asText() : null;
        if (key == null) {
            return general;
        }
        return lanes.computeIfAbsent(key, k -> Executors.newSingleThreadExecutor(named(k)));
    }

    /** Lets a lane's thread end once the work queued on it is done. */
    void closeLane(String key) {
        ExecutorService lane = lanes.remove(key);
        if (lane != null) {
            lane.shutdown();
        }
    }

    private void runCall(long id, String op, Frames.Frame frame) {
        ObjectNode reply = Frames.JSON.createObjectNode();
        reply.put("kind", "reply");
        reply.put("id", id);
        byte[] payload = Frames.NO_PAYLOAD;
        try {
            Result result = perform(op, frame.header(), frame.payload());
            reply.set("ok", result.body());
            payload = result.payload();
        } catch (Throwable t) {
            if (!(t instanceof RetriableException)) {
                log.debug("Call {} failed", op, t);
            }
            reply.set("error", error(t));
        }
        try {
            frames.write(reply, payload);
        } catch (IOException e) {
            log.error("Cannot answer Ferry; exiting", e);
            Runtime.getRuntime().halt(1);
        }
    }

    record Result(JsonNode body, byte[] payload) {
        static Result of(JsonNode body) {
            return new Result(body, Frames.NO_PAYLOAD);
        }

        static Result empty() {
            return of(Frames.JSON.createObjectNode());
        }
    }

    private Result perform(String op, ObjectNode h, byte[] payload) throws Exception {
        switch (op) {
            case "init":
                return init(h);
            case "plugins":
                return Result.of(pluginList());
            case "loggers.set":
                LogLevels.apply(strings(h.get("levels")));
                return Result.empty();
            case "plugin.config":
                return Result.of(Validation.pluginConfig(this, h.get("class").asText()));
            case "connector.config":
                return Result.of(Validation.connectorConfig(this, h.get("class").asText()));
            case "connector.validate":
                return Result.of(Validation.validate(this, h.get("class").asText(), strings(h.get("config"))));
            case "connector.start": {
                HostedConnector c = HostedConnector.start(this, h.get("connector").asText(),
                        h.get("class").asText(), strings(h.get("config")));
                connectors.put(c.name, c);
                return Result.of(c.describe());
            }
            case "connector.taskConfigs":
                return Result.of(connector(h).taskConfigs(h.get("maxTasks").asInt()));
            case "connector.alterOffsets":
                return Result.of(HostedConnector.alterOffsets(this, h.get("class").asText(),
                        strings(h.get("config")), h.get("offsets")));
            case "connector.exactlyOnce":
                return Result.of(HostedConnector.exactlyOnce(this, h.get("class").asText(),
                        h.get("question").asText(), strings(h.get("config"))));
            case "connector.stop": {
                String name = h.get("connector").asText();
                HostedConnector c = connectors.remove(name);
                if (c != null) {
                    c.stop();
                }
                closeLane("connector " + name);
                return Result.empty();
            }
            case "task.start": {
                String id = h.get("task").asText();
                HostedTask task = h.get("sink").asBoolean()
                        ? HostedSinkTask.start(this, h)
                        : HostedSourceTask.start(this, h);
                tasks.put(id, task);
                return Result.of(Frames.JSON.createObjectNode().put("version", task.version()));
            }
            case "task.stop": {
                String id = h.get("task").asText();
                HostedTask task = tasks.get(id);
                if (task != null) {
                    task.stop();
                }
                return Result.empty();
            }
            case "task.close": {
                // After stop, on the task's own lane: nothing of the task runs after this.
                String id = h.get("task").asText();
                HostedTask task = tasks.remove(id);
                if (task != null) {
                    task.close();
                }
                closeLane("task " + id);
                return Result.empty();
            }
            default:
                HostedTask task = tasks.get(h.path("task").asText());
                if (task == null) {
                    throw new IllegalStateException("No task " + h.path("task").asText() + " runs in this plugin host");
                }
                return task.call(op, h, payload);
        }
    }

    private HostedConnector connector(ObjectNode h) {
        HostedConnector c = connectors.get(h.get("connector").asText());
        if (c == null) {
            throw new IllegalStateException("Connector " + h.get("connector").asText() + " is not running in this plugin host");
        }
        return c;
    }

    private Result init(ObjectNode h) {
        Map<String, String> props = strings(h.get("workerProps"));
        workerId = h.path("workerId").asText("ferry");
        LogLevels.apply(strings(h.get("logLevels")));
        long started = System.nanoTime();
        plugins = new Plugins(props);
        workerConfig = new HostWorkerConfig(props);
        metrics = new ConnectMetrics(workerId, workerConfig, Time.SYSTEM, h.path("clusterId").asText(null));
        // The plugin.path scan leaves the heap grown far beyond what stays live; a collection
        // now lets G1 hand that memory back before any work starts.
        System.gc();
        log.info("Plugin host ready in {} ms", TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started));
        ObjectNode body = Frames.JSON.createObjectNode();
        body.set("plugins", pluginList());
        body.put("javaVersion", System.getProperty("java.version"));
        return Result.of(body);
    }

    private ArrayNode pluginList() {
        ArrayNode list = Frames.JSON.createArrayNode();
        Iterable<?>[] groups = {plugins.sinkConnectors(), plugins.sourceConnectors(), plugins.converters(),
            plugins.headerConverters(), plugins.transformations(), plugins.predicates()};
        for (Iterable<?> group : groups) {
            for (Object o : group) {
                PluginDesc<?> d = (PluginDesc<?>) o;
                list.addObject()
                        .put("class", d.className())
                        .put("type", d.typeName())
                        .put("version", d.version());
            }
        }
        return list;
    }

    /** Calls Ferry and waits for its answer (offset reads). */
    JsonNode callFerry(String op, ObjectNode args, long timeoutMs) throws Exception {
        long id = callIds.incrementAndGet();
        CompletableFuture<Frames.Frame> answer = new CompletableFuture<>();
        pendingCalls.put(id, answer);
        args.put("kind", "call");
        args.put("id", id);
        args.put("op", op);
        frames.write(args, Frames.NO_PAYLOAD);
        try {
            ObjectNode reply = answer.get(timeoutMs, TimeUnit.MILLISECONDS).header();
            if (reply.hasNonNull("error")) {
                throw new org.apache.kafka.connect.errors.ConnectException(reply.get("error").path("message").asText());
            }
            return reply.get("ok");
        } finally {
            pendingCalls.remove(id);
        }
    }

    /** Tells Ferry something that needs no answer. */
    void event(String op, ObjectNode args) {
        args.put("kind", "event");
        args.put("op", op);
        try {
            frames.write(args, Frames.NO_PAYLOAD);
        } catch (IOException e) {
            log.error("Cannot reach Ferry; exiting", e);
            Runtime.getRuntime().halt(1);
        }
    }

    static Map<String, String> strings(JsonNode node) {
        Map<String, String> out = new LinkedHashMap<>();
        if (node != null) {
            Iterator<Map.Entry<String, JsonNode>> it = node.fields();
            while (it.hasNext()) {
                Map.Entry<String, JsonNode> e = it.next();
                out.put(e.getKey(), e.getValue().isNull() ? null : e.getValue().asText());
            }
        }
        return out;
    }

    static ObjectNode json(Map<String, String> map) {
        ObjectNode node = Frames.JSON.createObjectNode();
        map.forEach(node::put);
        return node;
    }

    static ObjectNode error(Throwable t) {
        StringWriter trace = new StringWriter();
        t.printStackTrace(new PrintWriter(trace));
        ObjectNode e = Frames.JSON.createObjectNode();
        e.put("class", t.getClass().getName());
        e.put("message", t.getMessage());
        e.put("trace", trace.toString().stripTrailing());
        e.put("retriable", t instanceof RetriableException);
        return e;
    }

    /** Kafka's worker config keys and defaults, read from the same properties Ferry was given. */
    static final class HostWorkerConfig extends WorkerConfig {
        HostWorkerConfig(Map<String, String> props) {
            super(baseConfigDef(), props);
        }
    }
}
