package dev.ferry.host;

import com.fasterxml.jackson.databind.node.ObjectNode;
import org.apache.kafka.connect.runtime.isolation.LoaderSwap;
import org.apache.kafka.connect.util.LoggingContext;

/** A source or sink task running in this host, with the pipeline {@link TaskSetup} built for it. */
abstract class HostedTask {
    protected final TaskSetup setup;

    HostedTask(TaskSetup setup) {
        this.setup = setup;
    }

    String version() {
        try (LoaderSwap swap = setup.swap()) {
            return setup.task.version();
        }
    }

    /** Handles a task-specific call on the task's own thread. */
    abstract Host.Result call(String op, ObjectNode header, byte[] payload) throws Exception;

    /** Asks the task to stop; runs beside the task's thread, as Java's worker does. */
    void stop() {
        try (LoggingContext ignored = LoggingContext.forTask(setup.id); LoaderSwap swap = setup.swap()) {
            setup.task.stop();
        }
    }

    /** Releases what the task's pipeline holds, after stop. */
    void close() {
        setup.close();
    }
}
